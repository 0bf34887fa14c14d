/** Contacts by email address: the `gsi2` entries the customer repository writes (`keys.customerByEmail`). */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Customer } from '../../domain/customers/customer.ts';
import type { ContactsByEmail } from '../../domain/ports.ts';
import { dynamo } from '../aws-clients.ts';
import { keys, withoutMeta } from './keys.ts';
import { tableName } from './table.ts';

export const dynamoContactsByEmail = (): ContactsByEmail => ({
  async find(storeId, email) {
    // The sort key is not needed to address the partition; any origin id yields the same `gsi2pk`.
    const { gsi2pk } = keys.customerByEmail(storeId, email, '');
    const found: Customer[] = [];
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await dynamo().send(
        new QueryCommand({
          TableName: tableName(),
          IndexName: 'gsi2',
          KeyConditionExpression: 'gsi2pk = :pk',
          ExpressionAttributeValues: { ':pk': gsi2pk },
          ExclusiveStartKey,
        }),
      );
      for (const item of page.Items ?? []) if (item.entity === 'customer') found.push(withoutMeta<Customer>(item));
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    return found;
  },
});
