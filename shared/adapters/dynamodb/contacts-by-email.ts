/** Contacts by email address: the `gsi2` entries the customer repository writes (`keys.customerByEmail`). */
import type { Customer } from '../../domain/customers/customer.ts';
import type { ContactsByEmail } from '../../domain/ports.ts';
import { keys } from './keys.ts';
import { queryItems } from './query.ts';

export const dynamoContactsByEmail = (): ContactsByEmail => ({
  find: (storeId, email) =>
    queryItems<Customer>({
      IndexName: 'gsi2',
      KeyConditionExpression: 'gsi2pk = :pk',
      // The sort key is not needed to address the partition; any origin id yields the same `gsi2pk`.
      ExpressionAttributeValues: { ':pk': keys.customerByEmail(storeId, email, '').gsi2pk, ':customer': 'customer' },
      FilterExpression: '#entity = :customer',
      ExpressionAttributeNames: { '#entity': 'entity' },
    }),
});
