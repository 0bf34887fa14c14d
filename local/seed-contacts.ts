/**
 * Writes many new contacts at once, for tests and benches: 25 items per `BatchWriteItem`, and the export's contact
 * counters added per bucket (one `UpdateItem` per bucket touched, not four per contact), and their search lookup
 * items. Only for contacts that do not exist yet (an existing one would be counted twice); the service's own writes go
 * through the customer repository.
 */

import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '#shared/adapters/aws-clients.ts';
import { batchPut } from '#shared/adapters/dynamodb/batch.ts';
import { contactCountItems } from '#shared/adapters/dynamodb/contact-counts.ts';
import { contactLookupItems } from '#shared/adapters/dynamodb/contact-search.ts';
import { customerItem } from '#shared/adapters/dynamodb/customer.repository.ts';
import { tableName } from '#shared/adapters/dynamodb/table.ts';
import type { Customer } from '#shared/domain/customers/model.ts';

const PARALLEL = 8;

export const seedContacts = async (contacts: readonly Customer[]): Promise<void> => {
  await batchPut([...contacts.map(customerItem), ...contacts.flatMap(contactLookupItems)]);
  const byStore = Map.groupBy(contacts, (c) => c.storeId);
  const counters = [...byStore].flatMap(([storeId, of]) =>
    contactCountItems(
      storeId,
      of.map((c) => c.createdAt),
    ),
  );
  for (let i = 0; i < counters.length; i += PARALLEL) {
    await Promise.all(
      counters.slice(i, i + PARALLEL).map(({ pk, sk, n }) =>
        dynamo().send(
          new UpdateCommand({
            TableName: tableName(),
            Key: { pk, sk },
            UpdateExpression: 'ADD n :n SET entity = :entity, #schema = :schema',
            ExpressionAttributeNames: { '#schema': 'schema' },
            ExpressionAttributeValues: { ':n': n, ':entity': 'contactCount', ':schema': 1 },
          }),
        ),
      ),
    );
  }
};
