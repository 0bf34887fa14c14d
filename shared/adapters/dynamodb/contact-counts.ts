/**
 * The store's contact counters (`shared/domain/contacts/contact-counts.ts`): one small item per level and bucket, and a
 * state item saying whether they hold every contact of the store.
 *
 * The customer repository adjusts them after each write that adds a contact or moves its creation time: four
 * `UpdateItem ADD`s (one per level) after the contact's own put. They are not one transaction (the local emulator has
 * none, and a transaction on a store's hot day counter would conflict with every concurrent write), so a write that
 * cannot adjust them marks the store's counters stale: the export then serves that store the older way until
 * `npm run admin -- store count-contacts <storeId>` has counted it again (docs/contacts.md "Paging").
 */
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '#shared/adapters/aws-clients.ts';
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

type Change = { level: CountLevel; start: number; delta: number };

/** Creation-time deltas per bucket: a contact added at `added`, removed from `removed` (a move), merged per bucket. */
const deltas = (removed: number | undefined, added: number | undefined) => {
  const byKey = new Map<string, Change>();
  const apply = (second: number | undefined, delta: number) => {
    if (second === undefined) return;
    for (const { level, start } of bucketsOf(second)) {
      const key = `${level}#${start}`;
      const entry = byKey.get(key) ?? { level, start, delta: 0 };
      entry.delta += delta;
      byKey.set(key, entry);
    }
  };
  apply(removed, -1);
  apply(added, +1);
  return [...byKey.values()].filter((d) => d.delta !== 0);
};

/** One `ADD` per changed bucket; a failure marks the store's counters stale (the contacts are written). */
const applyChanges = async (storeId: string, changes: readonly Change[]): Promise<void> => {
  if (changes.length === 0) return;
  try {
    await Promise.all(
      changes.map(({ level, start, delta }) =>
        dynamo().send(
          new UpdateCommand({
            TableName: tableName(),
            Key: keys.contactCount(storeId, level, start),
            UpdateExpression: 'ADD n :delta SET entity = :entity, #schema = :schema',
            ExpressionAttributeNames: { '#schema': 'schema' },
            ExpressionAttributeValues: { ':delta': delta, ':entity': 'contactCount', ':schema': 1 },
          }),
        ),
      ),
    );
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
 * Counter adjustments kept for a queue-worker batch and written when it ends (`flush`, in its `afterBatch`; issue 16):
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
      for (const change of deltas(removed, added)) {
        const key = `${change.level}#${change.start}`;
        const entry = store.get(key);
        if (entry) entry.delta += change.delta;
        else store.set(key, { ...change });
      }
    }) satisfies ContactCountAdjuster,
    /** Writes what was kept since the last flush: one `ADD` per store, level and bucket whose sum is not 0. */
    async flush(): Promise<void> {
      const batch = kept;
      kept = new Map();
      await Promise.all(
        [...batch].map(([storeId, changes]) =>
          applyChanges(
            storeId,
            [...changes.values()].filter((c) => c.delta !== 0),
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
    const range = keys.contactCountRange(storeId, level, from, to);
    const items = await queryStoredItems({
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': range.pk, ':from': range.from, ':to': range.to },
      ProjectionExpression: 'sk, n',
    });
    return items.map((item): Bucket => ({ start: Number(item.sk), n: Number(item.n ?? 0) }));
  },
});

/** Every counter item of contacts created at `seconds` (one entry per contact), for writing them in one go. */
export const contactCountItems = (storeId: string, seconds: Iterable<number>): Record<string, unknown>[] => {
  const counts = new Map<string, { level: CountLevel; start: number; n: number }>();
  for (const second of seconds) {
    for (const { level, start } of bucketsOf(second)) {
      const key = `${level}#${start}`;
      const entry = counts.get(key);
      if (entry) entry.n++;
      else counts.set(key, { level, start, n: 1 });
    }
  }
  return [...counts.values()].map(({ level, start, n }) => ({
    ...keys.contactCount(storeId, level, start),
    ...itemMeta('contactCount'),
    n,
  }));
};

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
