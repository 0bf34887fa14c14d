/** Contacts by email address: the `gsi2` entries the customer repository writes (`keys.customerByEmail`). */

import type { ContactsByEmail } from '#shared/domain/contacts/ports.ts';
import type { Customer } from '#shared/domain/customers/model.ts';
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
