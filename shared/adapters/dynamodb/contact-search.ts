/**
 * The contact search's lookup items (`keys.contactByPhone`, `keys.contactByName`): written by the customer repository
 * after each save, only for the phone and name terms that changed, so most contact writes add nothing; read a page at
 * a time, then the contacts themselves in one batch read.
 */

import { dynamo } from '#shared/adapters/aws-clients.ts';
import { QueryCommand } from '#shared/adapters/dynamodb-client.ts';
import { type LookupTerms, lookupTerms } from '#shared/domain/contacts/contact-search.ts';
import type { ContactSearchIndex } from '#shared/domain/contacts/ports.ts';
import type { Customer } from '#shared/domain/customers/model.ts';
import { batchDelete, batchGet, batchPut } from './batch.ts';
import { directPuts, type ItemWriter } from './coalesced.ts';
import { itemMeta, keys, withoutMeta } from './keys.ts';
import { queryPage } from './query.ts';
import { tableName } from './table.ts';

type Key = { pk: string; sk: string };

const lookupKeys = (storeId: string, originId: string, terms: LookupTerms): Key[] => [
  ...(terms.phone ? [keys.contactByPhone(storeId, terms.phone, originId)] : []),
  ...terms.names.map((term) => keys.contactByName(storeId, term, originId)),
];

const lookupItem = (storeId: string, originId: string) => (key: Key) => ({
  ...key,
  ...itemMeta('contactLookup'),
  storeId,
  originId,
});

/** The lookup items of a contact as it is (for writers of many contacts at once: seeding, benches). */
export const contactLookupItems = (contact: Customer): Record<string, unknown>[] =>
  lookupKeys(contact.storeId, contact.originId, lookupTerms(contact)).map(
    lookupItem(contact.storeId, contact.originId),
  );

/**
 * After a contact's save: puts the lookup items of its new phone and name terms and deletes those of the ones it no
 * longer has (`replaced`: the item the save replaced). Nothing to write when neither changed.
 */
export const syncContactLookups = async (
  customer: Customer,
  replaced: Record<string, unknown> | undefined,
  puts: ItemWriter = directPuts,
): Promise<void> => {
  const { storeId, originId } = customer;
  const now = lookupKeys(storeId, originId, lookupTerms(customer));
  const before = replaced ? lookupKeys(storeId, originId, lookupTerms(replaced)) : [];
  const id = (key: Key) => `${key.pk}\n${key.sk}`;
  const kept = new Set(now.map(id));
  const had = new Set(before.map(id));
  const added = now.filter((key) => !had.has(id(key)));
  const removed = before.filter((key) => !kept.has(id(key)));
  if (added.length > 0) await puts.put(added.map(lookupItem(storeId, originId)));
  if (removed.length > 0) await batchDelete(removed);
};

/** The contacts a page of lookup items names, in the page's order (one that no longer exists is left out). */
const contactsOf = async (storeId: string, lookups: readonly { originId: string }[]): Promise<Customer[]> => {
  if (lookups.length === 0) return [];
  const items = await batchGet(lookups.map((l) => keys.customer(storeId, l.originId)));
  const byId = new Map(items.map((item) => [String(item.originId), withoutMeta<Customer>(item)]));
  return lookups.flatMap((l) => byId.get(l.originId) ?? []);
};

export const dynamoContactSearchIndex = (): ContactSearchIndex => ({
  async byPhone(storeId, phone, page) {
    const found = await queryPage<{ originId: string }>({
      partition: keys.contactByPhone(storeId, phone, '').pk,
      page,
      ascending: true,
    });
    return { ...found, items: await contactsOf(storeId, found.items) };
  },

  async byNamePrefix(storeId, prefix, page) {
    const { pk } = keys.contactsByNamePrefix(storeId, prefix);
    const found = await queryPage<{ originId: string }>({ partition: pk, sortPrefix: prefix, page, ascending: true });
    return { ...found, items: await contactsOf(storeId, found.items) };
  },

  async indexStore(storeId, progress = () => {}) {
    let read = 0;
    let start: Record<string, unknown> | undefined;
    do {
      const page = await dynamo().send(
        new QueryCommand({
          TableName: tableName(),
          IndexName: 'gsi1',
          KeyConditionExpression: 'gsi1pk = :pk',
          ExpressionAttributeValues: { ':pk': keys.customerByCreation(storeId, 0, '').gsi1pk },
          ProjectionExpression: '#originId, #phone, #firstName, #lastName',
          ExpressionAttributeNames: {
            '#originId': 'originId',
            '#phone': 'phone',
            '#firstName': 'firstName',
            '#lastName': 'lastName',
          },
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      const contacts = page.Items ?? [];
      await batchPut(
        contacts.flatMap((contact) => {
          const originId = String(contact.originId);
          return lookupKeys(storeId, originId, lookupTerms(contact)).map(lookupItem(storeId, originId));
        }),
      );
      read += contacts.length;
      progress(read);
      start = page.LastEvaluatedKey;
    } while (start);
    return read;
  },
});
