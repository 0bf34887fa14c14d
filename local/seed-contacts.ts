/**
 * Writes many new contacts at once, for tests and benches: 25 items per `BatchWriteItem`, and the export's contact
 * counters added per bucket (one `UpdateItem` per bucket touched, not four per contact), and their search lookup
 * items. Only for contacts that do not exist yet (an existing one would be counted twice); the service's own writes go
 * through the customer repository.
 *
 * A store seeded in several calls whose contacts' creation times spread (the export bench: nearly a bucket per
 * contact at the finer levels, 113,000 `UpdateItem`s for 100,000 contacts) can leave the counters out of each call
 * (`counters: false`) and write them once at the end with {@link seedContactCounts}: whole counter items, 25 per
 * batch write.
 *
 * A bench that only reads contacts by creation time (the export) can leave out the search's lookup items
 * (`lookups: false`): three more items per contact with a phone and two names, in partitions of their own that the
 * export never reads.
 */

import { dynamo } from '#shared/adapters/aws-clients.ts';
import { batchPut } from '#shared/adapters/dynamodb/batch.ts';
import { contactCountItems } from '#shared/adapters/dynamodb/contact-counts.ts';
import { contactLookupItems } from '#shared/adapters/dynamodb/contact-search.ts';
import { customerItem } from '#shared/adapters/dynamodb/customer.repository.ts';
import { tableName } from '#shared/adapters/dynamodb/table.ts';
import { UpdateCommand } from '#shared/adapters/dynamodb-client.ts';
import type { Customer } from '#shared/domain/customers/model.ts';

const PARALLEL = 8;

export const seedContacts = async (
  contacts: readonly Customer[],
  options: { counters?: boolean; lookups?: boolean } = {},
): Promise<void> => {
  await batchPut([
    ...contacts.map(customerItem),
    ...(options.lookups === false ? [] : contacts.flatMap(contactLookupItems)),
  ]);
  if (options.counters === false) return;
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

/**
 * The contact counters of a store none of whose contacts are counted yet (a new store seeded with `counters: false`):
 * every counter item put whole, from the creation times (seconds) of all its contacts. Counters already there would be
 * replaced, not added to.
 */
export const seedContactCounts = (storeId: string, createdAt: Iterable<number>): Promise<void> =>
  batchPut(contactCountItems(storeId, createdAt));
