/**
 * The store's contact counters (`shared/domain/contacts/contact-counts.ts`): one small item per level and bucket, and a
 * state item saying whether they hold every contact of the store.
 *
 * The customer repository adjusts them after each write that adds a contact or moves its creation time: three
 * `UpdateItem ADD`s after the contact's own put, one per item of the five levels' buckets that holds the contact's
 * creation time: its 30-day period's (the period's `n`, and its day's count as the attribute `d<day of the period,
 * 2 digits>`), its hour's (`n`) and its minute's (`n`, and its second's count as `s<second, 2 digits>`). Until the November 2026 cost pass
 * each day and each second had an item of its own too (five `ADD`s a contact; 1.66 write units per customer event in
 * the cost bench): those items are still read, beside the attributes, and a count is their sum (a day's contacts
 * written before are on the day's item, those since on the period's), so counters written by either version read
 * right; seeding and `store count-contacts` write the same layout (`contactCountItems`, `contactCountUpdates`), so
 * old-layout items are only ever ones written before. They are not one transaction (the local emulator has none, and
 * a transaction on a store's hot day counter would conflict with every concurrent write), so a write that cannot
 * adjust them marks the store's counters stale: the export then serves that store the older way until
 * `npm run admin -- store count-contacts <storeId>` has counted it again (docs/contacts.md "Paging").
 */

import { dynamo } from '#shared/adapters/aws-clients.ts';
import { QueryCommand, UpdateCommand } from '#shared/adapters/dynamodb-client.ts';
import {
  type Bucket,
  bucketsOf,
  COUNT_LEVELS,
  type ContactCounts,
  type CountLevel,
} from '#shared/domain/contacts/contact-counts.ts';
import { logger } from '#shared/observability.ts';
import { batchDelete, batchPut } from './batch.ts';
import { itemMeta, keys } from './keys.ts';
import { queryStoredItems } from './query.ts';
import { getItem, tableName } from './table.ts';

type CountState = 'exact' | 'stale' | 'counting';

const setState = async (storeId: string, state: CountState) => {
  await dynamo().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.contactCountState(storeId),
      UpdateExpression: 'SET #state = :state, entity = :entity, #schema = :schema',
      ExpressionAttributeNames: { '#state': 'state', '#schema': 'schema' },
      ExpressionAttributeValues: { ':state': state, ':entity': 'contactCount', ':schema': 1 },
    }),
  );
};

/** The state item of a new store: it has no contacts, so its (absent) counters are exact. */
export const exactCountStateItem = (storeId: string) => ({
  ...keys.contactCountState(storeId),
  ...itemMeta('contactCount'),
  state: 'exact' satisfies CountState,
});

/**
 * The levels whose buckets are attributes of their parent's item (written since the November 2026 cost pass): a day's count on its
 * 30-day period's item, a second's on its minute's. Their attribute: the prefix and the bucket's index in the parent.
 */
const ON_PARENT: Partial<Record<CountLevel, { readonly parent: CountLevel; readonly prefix: string }>> = {
  1: { parent: 0, prefix: 'd' },
  4: { parent: 3, prefix: 's' },
};

const childAttribute = (prefix: string, index: number) => `${prefix}${String(index).padStart(2, '0')}`;

/** One counter item's adjustment: its own count (`n`) and its children's attributes. */
type Change = { level: CountLevel; start: number; delta: number; children: Map<string, number> };

const isEmpty = (change: Change) => change.delta === 0 && [...change.children.values()].every((d) => d === 0);

/** Adds the deltas of a contact added at `added`, removed from `removed` (a move), per item, to `byKey`. */
const addDeltas = (byKey: Map<string, Change>, removed: number | undefined, added: number | undefined) => {
  const itemOf = (level: CountLevel, start: number) => {
    const key = `${level}#${start}`;
    let entry = byKey.get(key);
    if (!entry) {
      entry = { level, start, delta: 0, children: new Map() };
      byKey.set(key, entry);
    }
    return entry;
  };
  const apply = (second: number | undefined, delta: number) => {
    if (second === undefined) return;
    const buckets = bucketsOf(second);
    for (const { level, start } of buckets) {
      const onParent = ON_PARENT[level];
      if (!onParent) {
        itemOf(level, start).delta += delta;
        continue;
      }
      const parent = buckets[onParent.parent] as { level: CountLevel; start: number };
      const name = childAttribute(onParent.prefix, (start - parent.start) / COUNT_LEVELS[level]);
      const children = itemOf(parent.level, parent.start).children;
      children.set(name, (children.get(name) ?? 0) + delta);
    }
  };
  apply(removed, -1);
  apply(added, +1);
};

/** The counter items' adjustments for a contact added at `added`, removed from `removed` (a move). */
const deltas = (removed: number | undefined, added: number | undefined) => {
  const byKey = new Map<string, Change>();
  addDeltas(byKey, removed, added);
  return [...byKey.values()].filter((change) => !isEmpty(change));
};

/** The `UpdateItem` of one counter item: `ADD` to its count and to each changed child's attribute. */
const updateOf = (storeId: string, { level, start, delta, children }: Change) => {
  const adds: string[] = [];
  const names: Record<string, string> = { '#schema': 'schema' };
  const values: Record<string, unknown> = { ':entity': 'contactCount', ':schema': 1 };
  if (delta !== 0) {
    adds.push('n :n');
    values[':n'] = delta;
  }
  for (const [name, d] of children) {
    if (d === 0) continue;
    adds.push(`#${name} :${name}`);
    names[`#${name}`] = name;
    values[`:${name}`] = d;
  }
  return new UpdateCommand({
    TableName: tableName(),
    Key: keys.contactCount(storeId, level, start),
    UpdateExpression: `ADD ${adds.join(', ')} SET entity = :entity, #schema = :schema`,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  });
};

/** One `ADD` per changed item; a failure marks the store's counters stale (the contacts are written). */
const applyChanges = async (storeId: string, changes: readonly Change[]): Promise<void> => {
  if (changes.length === 0) return;
  try {
    await Promise.all(changes.map((change) => dynamo().send(updateOf(storeId, change))));
  } catch (error) {
    logger.error('Contact counters not adjusted; the export counts this store the slow way until it is recounted', {
      storeId,
      error,
    });
    await setState(storeId, 'stale');
  }
};

/**
 * Adjusts the counters for a contact written with creation time `added`, that had `removed` before (undefined: a new
 * contact). Never throws for a counter: the contact is written, so a failure marks the store's counters stale instead.
 */
export const adjustContactCounts = (
  storeId: string,
  removed: number | undefined,
  added: number | undefined,
): Promise<void> => applyChanges(storeId, deltas(removed, added));

/** Where a customer repository adjusts the counters after a write: at once (`adjustContactCounts`) or per batch. */
export type ContactCountAdjuster = typeof adjustContactCounts;

/**
 * Counter adjustments kept for a queue-worker batch and written when it ends (`flush`, in its `afterBatch`):
 * the new contacts of one store in a batch share their 30-day, day and hour buckets (often the minute), so they cost
 * one `ADD` per bucket instead of five per contact. Kept only for writes that succeeded, so a message whose handling
 * failed after its contact was written, and that the queue delivers again, counts once (its second handling finds the
 * contact and adjusts nothing). A failed flush marks the store stale, as a failed adjustment does; a worker that dies
 * before the flush loses what it kept, as one dying between the contact's put and its `ADD`s always did (wider: up to
 * the batch's end; docs/contacts.md).
 */
export const batchedContactCounts = () => {
  let kept = new Map<string, Map<string, Change>>();
  return {
    adjust: (async (storeId, removed, added) => {
      let store = kept.get(storeId);
      if (!store) {
        store = new Map();
        kept.set(storeId, store);
      }
      addDeltas(store, removed, added);
    }) satisfies ContactCountAdjuster,
    /** Writes what was kept since the last flush: one `ADD` per store and counter item whose sums are not all 0. */
    async flush(): Promise<void> {
      const batch = kept;
      kept = new Map();
      await Promise.all(
        [...batch].map(([storeId, changes]) =>
          applyChanges(
            storeId,
            [...changes.values()].filter((change) => !isEmpty(change)),
          ),
        ),
      );
    },
  };
};

export const dynamoContactCounts = (): ContactCounts => ({
  async exact(storeId) {
    const item = await getItem(keys.contactCountState(storeId), false);
    return item?.state === 'exact';
  },

  async buckets(storeId, level, from, to) {
    const query = (at: CountLevel, start: number, projection?: string) => {
      const range = keys.contactCountRange(storeId, at, start, to);
      return queryStoredItems({
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': range.pk, ':from': range.from, ':to': range.to },
        ...(projection ? { ProjectionExpression: projection } : {}),
      });
    };
    const onParent = ON_PARENT[level];
    // A level kept on its parent's items (since the November 2026 cost pass) is read there too, beside its own items (written before).
    const [own, parents] = await Promise.all([
      query(level, from, 'sk, n'),
      onParent ? query(onParent.parent, from - (from % COUNT_LEVELS[onParent.parent])) : Promise.resolve([]),
    ]);
    const counts = new Map<number, number>();
    const add = (start: number, n: number) => counts.set(start, (counts.get(start) ?? 0) + n);
    for (const item of own) add(Number(item.sk), Number(item.n ?? 0));
    if (onParent) {
      const size = COUNT_LEVELS[level];
      for (const item of parents) {
        const parentStart = Number(item.sk);
        for (const [name, value] of Object.entries(item)) {
          if (name[0] !== onParent.prefix || !/^.\d\d$/.test(name)) continue;
          const start = parentStart + Number(name.slice(1)) * size;
          if (start >= from && start <= to) add(start, Number(value));
        }
      }
    }
    return [...counts].sort((a, b) => a[0] - b[0]).map(([start, n]): Bucket => ({ start, n }));
  },
});

/** The counter items' changes for contacts created at `seconds` (one entry per contact), summed per item. */
const changesOf = (seconds: Iterable<number>): Change[] => {
  const byKey = new Map<string, Change>();
  for (const second of seconds) addDeltas(byKey, undefined, second);
  return [...byKey.values()].filter((change) => !isEmpty(change));
};

/**
 * Every counter item of contacts created at `seconds` (one entry per contact), whole, in the layout the service writes
 * (a day's count on its 30-day period's item, a second's on its minute's), for writing them in one go: a new store's
 * seeding, or `store count-contacts` after it deleted the store's counter items.
 */
export const contactCountItems = (storeId: string, seconds: Iterable<number>): Record<string, unknown>[] =>
  changesOf(seconds).map(({ level, start, delta, children }) => ({
    ...keys.contactCount(storeId, level, start),
    ...itemMeta('contactCount'),
    n: delta,
    ...Object.fromEntries([...children].filter(([, d]) => d !== 0)),
  }));

/**
 * The `UpdateItem ADD`s that count contacts created at `seconds` on top of the counters already there (one per counter
 * item they touch), for seeding contacts into a store in several calls.
 */
export const contactCountUpdates = (storeId: string, seconds: Iterable<number>) =>
  changesOf(seconds).map((change) => updateOf(storeId, change));

/** Every key of a store's counter items. */
const counterKeys = async (storeId: string): Promise<{ pk: string; sk: string }[]> => {
  const levels = await Promise.all(
    COUNT_LEVELS.map((_, level) =>
      queryStoredItems({
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.contactCountRange(storeId, level as CountLevel, 0, 0).pk },
        ProjectionExpression: 'pk, sk',
      }),
    ),
  );
  return levels.flat().map((item) => ({ pk: String(item.pk), sk: String(item.sk) }));
};

/** The creation second of every contact of the store, read from the creation index (keys only). */
const creationSeconds = async (storeId: string, progress: (read: number) => void): Promise<number[]> => {
  const range = keys.customersCreatedBetween(storeId, undefined, undefined);
  const seconds: number[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': range.gsi1pk, ':from': range.from, ':to': range.to },
        ProjectionExpression: 'gsi1sk',
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    for (const item of page.Items ?? []) seconds.push(Number(String(item.gsi1sk).slice(0, 12)));
    progress(seconds.length);
    start = page.LastEvaluatedKey;
  } while (start);
  return seconds;
};

const ATTEMPTS = 3;

/**
 * Counts the store's contacts again and writes its counters whole (`store count-contacts`: stores created before the
 * counters existed, or marked stale). Contacts written meanwhile can race with the rewrite, so the result is checked
 * against a second count and the whole is done again, up to three times, when they differ. Returns the count, or
 * undefined when it never settled (the store stays on the older export; run it again when the store is quieter).
 */
export const recountContacts = async (
  storeId: string,
  progress: (read: number) => void = () => {},
): Promise<number | undefined> => {
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    await setState(storeId, 'counting');
    const seconds = await creationSeconds(storeId, progress);
    await batchDelete(await counterKeys(storeId));
    await batchPut(contactCountItems(storeId, seconds));
    const check = await creationSeconds(storeId, () => {});
    if (check.length === seconds.length) {
      await setState(storeId, 'exact');
      return seconds.length;
    }
  }
  await setState(storeId, 'stale');
  return undefined;
};
