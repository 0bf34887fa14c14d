/**
 * The export's contact counters as the ingest worker keeps them (`batchedContactCounts`): a batch's new
 * contacts of one store cost one `ADD` per bucket they share, written when the batch ends, and the counters then hold
 * exactly what writing each contact's adjustments at once holds (contacts moved in time included); a write that
 * adjusts nothing (an update) keeps nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamo } from '#shared/adapters/aws-clients.ts';
import { batchPut } from '#shared/adapters/dynamodb/batch.ts';
import {
  batchedContactCounts,
  contactCountItems,
  contactCountUpdates,
  dynamoContactCounts,
  recountContacts,
} from '#shared/adapters/dynamodb/contact-counts.ts';
import { dynamoCustomerRepository } from '#shared/adapters/dynamodb/customer.repository.ts';
import { itemMeta, keys } from '#shared/adapters/dynamodb/keys.ts';
import { queryStoredItems } from '#shared/adapters/dynamodb/query.ts';
import { bucketsOf, COUNT_LEVELS, type CountLevel } from '#shared/domain/contacts/contact-counts.ts';
import { newStore } from '#test/support/local.ts';
import { BASE_SECONDS, contact, countersOf } from './support.ts';

let runtime: LocalRuntime;
beforeAll(async () => {
  runtime = await startLocalRuntime({ gateways: false, pollers: false, logLevel: 'ERROR' });
});
afterAll(async () => {
  await runtime?.stop();
});

/** The counter items holding buckets (`level:start`): a day is on its 30-day period's item, a second on its minute's. */
const itemsOf = (buckets: readonly string[]) =>
  new Set(
    buckets.map((bucket) => {
      const [level, start] = bucket.split(':').map(Number) as [number, number];
      const itemLevel = level === 1 ? 0 : level === 4 ? 3 : level;
      return `${itemLevel}:${start - (start % COUNT_LEVELS[itemLevel as CountLevel])}`;
    }),
  ).size;

/** Counter items as every writer wrote them before the November 2026 cost pass: one item per level and bucket, its count as `n`. */
const itemsBeforeIssue16 = (storeId: string, seconds: readonly number[]) => {
  const counts = new Map<string, { level: CountLevel; start: number; n: number }>();
  for (const second of seconds) {
    for (const { level, start } of bucketsOf(second)) {
      const entry = counts.get(`${level}#${start}`) ?? { level, start, n: 0 };
      entry.n++;
      counts.set(`${level}#${start}`, entry);
    }
  }
  return [...counts.values()].map(({ level, start, n }) => ({
    ...keys.contactCount(storeId, level, start),
    ...itemMeta('contactCount'),
    n,
  }));
};

const updateCalls = async (work: () => Promise<unknown>) => {
  const before = runtime.dynamodbCalls().UpdateItem ?? 0;
  await work();
  return (runtime.dynamodbCalls().UpdateItem ?? 0) - before;
};

describe('batchedContactCounts', () => {
  it('adds a batch’s new contacts once per store and bucket at the flush, the same counters as adjusting each at once', async () => {
    const [batched, direct] = await Promise.all([newStore('Batched counts'), newStore('Direct counts')]);
    const counts = batchedContactCounts();
    const viaBatch = dynamoCustomerRepository(undefined, counts.adjust);
    const atOnce = dynamoCustomerRepository();
    // Six contacts in two seconds of one minute, and one in another day; then one of the first moved to that day.
    const seconds = [0, 0, 0, 1, 1, 1, 86_400 * 3].map((s) => BASE_SECONDS + s);
    const mine = seconds.map((s) => contact(batched.storeId, s));
    const theirs = seconds.map((s) => contact(direct.storeId, s));

    const writes = await updateCalls(() => Promise.all(mine.map((c) => viaBatch.save(c, 0))));
    expect(writes).toBe(0);
    expect(await countersOf(batched.storeId)).toEqual({});
    const moved = { ...(mine[0] as (typeof mine)[number]), createdAt: BASE_SECONDS + 86_400 * 3, revision: 2 };
    await viaBatch.save(moved, 1);
    // An update that does not move the contact adjusts nothing.
    await viaBatch.save({ ...(mine[1] as (typeof mine)[number]), firstName: 'Ann', revision: 2 }, 1);
    // The flush: each bucket the batch's contacts touched, once.
    const flushed = await updateCalls(() => counts.flush());

    await Promise.all(theirs.map((c) => atOnce.save(c, 0)));
    await atOnce.save(
      { ...(theirs[0] as (typeof theirs)[number]), createdAt: BASE_SECONDS + 86_400 * 3, revision: 2 },
      1,
    );

    const expected = await countersOf(direct.storeId);
    expect(await countersOf(batched.storeId)).toEqual(expected);
    // One ADD per counter item the batch touched, whose buckets are not empty: a period's (with its days), an hour's
    // and a minute's (with its seconds); far fewer than five per contact (7 new contacts, 1 move).
    expect(flushed).toBe(itemsOf(Object.keys(expected)));
    expect(flushed).toBeLessThan(3 * seconds.length);
    // Nothing kept after the flush.
    expect(await updateCalls(() => counts.flush())).toBe(0);
  });

  it('reads counters written before the November 2026 cost pass (an item per day and per second) beside those since, as their sum', async () => {
    const [mixed, before] = await Promise.all([newStore('Mixed counts'), newStore('Counts before')]);
    const earlier = [0, 0, 1, 86_400 * 2].map((s) => BASE_SECONDS + s);
    const later = [0, 1, 2, 86_400 * 2, 86_400 * 40].map((s) => BASE_SECONDS + s);
    // The store's first contacts counted in the layout before the November 2026 cost pass (one item per bucket), the next ones by the
    // worker since; the other store has every contact in the layout before.
    await batchPut(itemsBeforeIssue16(mixed.storeId, earlier));
    const counts = batchedContactCounts();
    for (const second of later) await counts.adjust(mixed.storeId, undefined, second);
    await counts.flush();
    await batchPut(itemsBeforeIssue16(before.storeId, [...earlier, ...later]));

    expect(await countersOf(mixed.storeId)).toEqual(await countersOf(before.storeId));
    const reader = dynamoContactCounts();
    // Ranges that start and end inside a period and a minute.
    for (const [level, from, to] of [
      [1, BASE_SECONDS + 86_400, BASE_SECONDS + 86_400 * 50],
      [4, BASE_SECONDS + 1, BASE_SECONDS + 2],
      [4, BASE_SECONDS, BASE_SECONDS],
    ] as const) {
      const read = (storeId: string) => reader.buckets(storeId, level, from, to);
      expect(await read(mixed.storeId)).toEqual(await read(before.storeId));
    }
  });

  it('is the one layout every writer writes: the worker, seeding whole or by ADDs, and a recount', async () => {
    const [worker, whole, added, recounted] = await Promise.all([
      newStore('By the worker'),
      newStore('Seeded whole'),
      newStore('Seeded by ADDs'),
      newStore('Recounted'),
    ]);
    const seconds = [0, 0, 1, 59, 60, 3_600, 86_400 * 2, 86_400 * 31].map((s) => BASE_SECONDS + s);

    const counts = batchedContactCounts();
    for (const second of seconds) await counts.adjust(worker.storeId, undefined, second);
    await counts.flush();
    await batchPut(contactCountItems(whole.storeId, seconds));
    // Seeding in two calls: the second call's ADDs land on items the first wrote.
    for (const part of [seconds.slice(0, 3), seconds.slice(3)]) {
      for (const update of contactCountUpdates(added.storeId, part)) await dynamo().send(update);
    }
    // A store counted in the layout before the November 2026 cost pass, then recounted from its contacts.
    const repository = dynamoCustomerRepository(undefined, async () => {});
    for (const second of seconds) await repository.save(contact(recounted.storeId, second), 0);
    await batchPut(itemsBeforeIssue16(recounted.storeId, seconds));
    expect(await recountContacts(recounted.storeId)).toBe(seconds.length);

    /** The store's counter items as stored, keyed by level and sort key, without the store's own id. */
    const stored = async (storeId: string) => {
      const items: Record<string, Record<string, unknown>> = {};
      for (const level of COUNT_LEVELS.keys()) {
        const pk = keys.contactCount(storeId, level, 0).pk;
        for (const { pk: _pk, ...item } of await queryStoredItems({
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': pk },
        })) {
          items[`${level}:${String(item.sk)}`] = item;
        }
      }
      return items;
    };
    const expected = await stored(worker.storeId);
    // No item of its own for a day or a second: those are attributes of the 30-day and minute items.
    expect(Object.keys(expected).some((key) => key.startsWith('1:') || key.startsWith('4:'))).toBe(false);
    expect(Object.values(expected).some((item) => Object.keys(item).some((name) => /^s\d\d$/.test(name)))).toBe(true);
    for (const store of [whole, added, recounted]) expect(await stored(store.storeId)).toEqual(expected);
  });
});
