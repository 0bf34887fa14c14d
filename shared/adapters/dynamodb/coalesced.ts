/**
 * Reads and unconditional puts that arrive together, made together. A queue worker handles its batch's
 * records side by side, and each record takes the same steps: the batch's records read their triggers, runs and
 * senders at about the same moment. Every read asked for before the event loop next turns (`setImmediate`) goes out in
 * one `BatchGetItem` (consistent, like `getItem`), every put in one `BatchWriteItem`; each caller's promise settles
 * with its own item once that call answered, so a caller learns exactly what a single call would have told it (a put
 * that resolves is written; a call that fails for a moment fails every caller in it; one that DynamoDB refuses for good,
 * as it does a whole batch for one bad item, is made again request by request, so only the bad one's caller fails).
 *
 * Only for what a plain `GetItem` or unconditional `PutItem` does: a conditional write decides something per item and
 * keeps its own call. Puts of one key in the same turn are one write, the last asked for (DynamoDB refuses a batch
 * that names a key twice); its callers all wait for it.
 */

import { dynamo } from '#shared/adapters/aws-clients.ts';
import { PutCommand } from '#shared/adapters/dynamodb-client.ts';
import { isPermanentDependencyError } from '#shared/errors.ts';
import { batchGet, batchPut } from './batch.ts';
import { withoutMeta } from './keys.ts';
import { getItem, tableName } from './table.ts';

type Key = { pk: string; sk: string };
type Item = Record<string, unknown>;

/** Where a repository reads single items: `getItem` unless it is handed `coalescedGets()`. */
export interface ItemReader {
  get(key: Key): Promise<Item | undefined>;
}
/** Where a repository puts items unconditionally: `batchPut` unless it is handed `coalescedPuts()`. */
export interface ItemWriter {
  put(items: readonly Item[]): Promise<void>;
}

export const directReads: ItemReader = { get: (key) => getItem(key) };

/** A record read through `reads`, without the item's keys and metadata (`getRecord`'s answer, from any reader). */
export const readRecord = async <T>(reads: ItemReader, key: Key): Promise<T | undefined> => {
  const item = await reads.get(key);
  return item ? withoutMeta<T>(item) : undefined;
};
export const directPuts: ItemWriter = {
  async put(items) {
    if (items.length !== 1) return batchPut(items);
    await dynamo().send(new PutCommand({ TableName: tableName(), Item: items[0] }));
  },
};

interface Waiter<T> {
  resolve(value: T): void;
  reject(error: unknown): void;
}

const idOf = (key: { pk?: unknown; sk?: unknown }) => `${String(key.pk)}\u0000${String(key.sk)}`;

/** Gathers what is asked for during one turn of the event loop and hands it to `run` at the next. */
const turnBatcher = <Request, Answer>(
  run: (requests: Map<string, Request>) => Promise<Map<string, Answer>>,
  schedule: (flush: () => void) => void,
) => {
  type Batch = Map<string, { request: Request; waiters: Waiter<Answer | undefined>[] }>;
  let pending: Batch | undefined;
  const flush = async (batch: Batch): Promise<void> => {
    try {
      const answers = await run(new Map([...batch].map(([id, entry]) => [id, entry.request])));
      for (const [id, entry] of batch) for (const waiter of entry.waiters) waiter.resolve(answers.get(id));
    } catch (error) {
      // DynamoDB refuses a whole batch for one bad item (over 400 KB, say): each request is then made alone, so only
      // its own caller fails. Otherwise one store's oversized record would fail every store's events of that turn,
      // permanently. A transient failure fails them all: each caller retries.
      if (batch.size > 1 && isPermanentDependencyError(error)) {
        await Promise.all([...batch].map(([id, entry]) => flush(new Map([[id, entry]]))));
        return;
      }
      for (const entry of batch.values()) for (const waiter of entry.waiters) waiter.reject(error);
    }
  };
  return (id: string, request: Request): Promise<Answer | undefined> => {
    if (!pending) {
      const batch: Batch = new Map();
      pending = batch;
      schedule(() => {
        pending = undefined;
        void flush(batch);
      });
    }
    const batch = pending;
    return new Promise((resolve, reject) => {
      const entry = batch.get(id);
      // A later put of the same key replaces the earlier one's item (the last asked for is written).
      if (entry) {
        entry.request = request;
        entry.waiters.push({ resolve, reject });
      } else {
        batch.set(id, { request, waiters: [{ resolve, reject }] });
      }
    });
  };
};

const nextTurn = (flush: () => void) => {
  setImmediate(flush);
};

/** Consistent reads of single items, gathered per turn of the event loop. */
export const coalescedGets = (schedule: (flush: () => void) => void = nextTurn): ItemReader => {
  const get = turnBatcher<Key, Item>(async (requests) => {
    const keys = [...requests.values()];
    // Alone in its turn: a plain GetItem (the same read, without a batch's framing).
    if (keys.length === 1) {
      const [key] = keys as [Key];
      const item = await getItem(key);
      return new Map(item ? [[idOf(key), item]] : []);
    }
    return new Map((await batchGet(keys)).map((item) => [idOf(item as Key), item]));
  }, schedule);
  return {
    /** The item at `key` (consistent read), or undefined; each caller gets its own copy. */
    async get(key: Key): Promise<Item | undefined> {
      const item = await get(idOf(key), { pk: key.pk, sk: key.sk });
      return item ? structuredClone(item) : undefined;
    },
  };
};

/** Unconditional puts, gathered per turn of the event loop. */
export const coalescedPuts = (schedule: (flush: () => void) => void = nextTurn): ItemWriter => {
  const put = turnBatcher<Item, true>(async (requests) => {
    await directPuts.put([...requests.values()]);
    return new Map([...requests.keys()].map((id) => [id, true as const]));
  }, schedule);
  return {
    /** Puts every item (each a full item with its keys); resolves once all are written. */
    async put(items: readonly Item[]): Promise<void> {
      await Promise.all(items.map((item) => put(idOf(item), item)));
    },
  };
};

/**
 * Requests of one group asked for during one turn of the event loop, handed together to `run` at the next turn (in the
 * order asked), which answers each of them (`answers[i]` for `requests[i]`). For conditional counters whose callers
 * can share one write: the run-start budget and the send pacer reserve a turn's requests of one store as one
 * (`coalescedRunBudget`, `coalescedPacer`), each caller told what its own reservation in that order would have been.
 */
export const gatheredPerTurn = <Request, Answer>(
  run: (group: string, requests: readonly Request[]) => Promise<readonly Answer[]>,
  schedule: (flush: () => void) => void = nextTurn,
) => {
  type Entry = { request: Request; waiter: Waiter<Answer> };
  let pending: Map<string, Entry[]> | undefined;
  const flushGroup = async (group: string, entries: Entry[]) => {
    try {
      const answers = await run(
        group,
        entries.map((entry) => entry.request),
      );
      entries.forEach((entry, i) => {
        entry.waiter.resolve(answers[i] as Answer);
      });
    } catch (error) {
      for (const entry of entries) entry.waiter.reject(error);
    }
  };
  return (group: string, request: Request): Promise<Answer> => {
    if (!pending) {
      const groups = new Map<string, Entry[]>();
      pending = groups;
      schedule(() => {
        pending = undefined;
        for (const [name, entries] of groups) void flushGroup(name, entries);
      });
    }
    const groups = pending;
    return new Promise((resolve, reject) => {
      const entries = groups.get(group);
      const entry = { request, waiter: { resolve, reject } };
      if (entries) entries.push(entry);
      else groups.set(group, [entry]);
    });
  };
};
