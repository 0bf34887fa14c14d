/**
 * The event history's daily compaction on an in-memory table: a day's packs merged into as few as fit, the reader's
 * answer unchanged, the same packs whatever the layout it starts from, nothing written again on a compacted day, and
 * nothing lost whatever put or delete the run stops at.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  type EventHistory,
  HistoryBuffer,
  type HistoryEvent,
  readHistory,
} from '#shared/domain/ingest/event-history.ts';
import {
  type CompactableHistory,
  type CompactHistoryDeps,
  compactHistoryDay,
  compactionAt,
  compactionSchedule,
  compactionTimerName,
} from '#shared/domain/ingest/history-compaction.ts';
import { type Pack, packEvents, packedJson, packSerialized } from '#shared/domain/ingest/history-pack.ts';
import type { IngestMessage } from '#shared/domain/ingest/model.ts';
import type { Timer } from '#shared/domain/timers/model.ts';
import { RetryLater } from '#shared/errors.ts';

const STORE = 'st_a';
const DAY = '2026-11-01';
const T0 = Date.UTC(2026, 10, 1);
const DAY_MS = 86_400_000;
const NOW = T0 + 2 * DAY_MS;
const clock = { now: () => NOW };

const event = (n: number, at: number): HistoryEvent => ({
  storeId: STORE,
  sourceId: `src-${String(n).padStart(4, '0')}`,
  endpoint: n % 3 === 0 ? 'carts/create' : 'page/viewed',
  interface: 'general',
  acceptedAt: at,
  data: { token: `cart-${n}`, email: `c${n % 17}@example.com`, line_items: [{ product_id: `p-${n % 7}` }] },
});

/** A day's events: `count` of them over the day, a few accepted in the same millisecond. */
const dayEvents = (count: number) => Array.from({ length: count }, (_, n) => event(n, T0 + Math.floor(n / 3) * 97_000));

const idOf = (pack: Pack) =>
  `PACK#${String(pack.firstAt).padStart(15, '0')}#${createHash('sha256').update(pack.bytes).digest('base64url').slice(0, 16)}`;

/**
 * One store's day in memory, as the table keeps it: items by sort key, pages of `pageSize` items continuing after the
 * last key answered (as `ExclusiveStartKey` does, whatever was deleted meanwhile). `ops` records every call.
 */
const memoryDay = (pageSize = 4) => {
  const items = new Map<string, { notBefore: number; packs: Uint8Array[]; expiresAt: number }>();
  const ops: string[] = [];
  const sortedIds = () => [...items.keys()].sort();
  const compactable: CompactableHistory = {
    async items(_storeId, _day, after) {
      ops.push('items');
      const ids = sortedIds().filter((id) => after === undefined || id > (after as string));
      const page = ids.slice(0, pageSize);
      const answer = page.map((id) => {
        const item = items.get(id) as { notBefore: number; packs: Uint8Array[] };
        return { id, notBefore: item.notBefore, packs: item.packs };
      });
      return ids.length > pageSize ? { items: answer, next: page[page.length - 1] } : { items: answer };
    },
    idOf,
    async put(_storeId, pack, expiresAt) {
      ops.push(`put ${idOf(pack)}`);
      items.set(idOf(pack), { notBefore: pack.firstAt, packs: [pack.bytes], expiresAt });
    },
    async remove(_storeId, _day, ids) {
      ops.push(`remove ${ids.length}`);
      for (const id of ids) items.delete(id);
    },
  };
  const reader: EventHistory = {
    async put() {
      throw new Error('not here');
    },
    async page() {
      return { packs: sortedIds().flatMap((id) => items.get(id)?.packs ?? []) };
    },
  };
  /** Stores packs as the worker does, each an item of its own. */
  const store = async (groups: readonly (readonly HistoryEvent[])[]) => {
    for (const group of groups) {
      for (const pack of await packEvents(group)) {
        items.set(idOf(pack), { notBefore: pack.firstAt, packs: [pack.bytes], expiresAt: 1 });
      }
    }
  };
  /** Stores a minute's item of the layout before the November 2026 cost pass: the minute's packs in one set. */
  const storeMinute = async (minute: number, groups: readonly (readonly HistoryEvent[])[]) => {
    const packs = (await Promise.all(groups.map((g) => packEvents(g)))).flat().map((p) => p.bytes);
    items.set(`PACK#${String(minute).padStart(15, '0')}`, { notBefore: minute, packs, expiresAt: 1 });
  };
  const read = async () => {
    const all: HistoryEvent[] = [];
    for await (const page of readHistory(reader, STORE, T0, T0 + DAY_MS)) all.push(...page);
    return all;
  };
  return { items, ops, compactable, store, storeMinute, read };
};

const deps = (history: CompactableHistory, packJson?: number): CompactHistoryDeps => ({
  history,
  keepDays: 90,
  clock,
  ...(packJson ? { packJson } : {}),
});

/**
 * What a trickle store's day looks like: an item per event, some events twice (a batch delivered again: the same item;
 * an event applied again in another batch: another item).
 */
const trickle = (events: readonly HistoryEvent[]) => [
  ...events.map((e) => [e]),
  [events[5] as HistoryEvent],
  [events[6] as HistoryEvent, events[events.length - 5] as HistoryEvent],
];

describe('packSerialized', () => {
  it('gives the very packs packEvents gives, split the same way', async () => {
    const events = dayEvents(300);
    for (const max of [350_000, 2_000]) {
      const a = await packEvents(events, max);
      const b = await packSerialized(events, events.map(packedJson), max);
      expect(b.map(idOf)).toEqual(a.map(idOf));
      expect(a.length > 1).toBe(max === 2_000);
    }
  });
});

describe('compactHistoryDay', () => {
  it('merges a trickle day (and an old minute item) into one pack, the reader answering the same events', async () => {
    const day = memoryDay();
    const events = dayEvents(120);
    await day.store(trickle(events.slice(0, 100)));
    await day.storeMinute(Math.floor((events[100] as HistoryEvent).acceptedAt / 60_000) * 60_000, [
      events.slice(100, 110),
      events.slice(105, 120),
    ]);
    const before = await day.read();
    expect(before).toHaveLength(120);
    expect(day.items.size).toBe(102);

    const outcome = await compactHistoryDay(deps(day.compactable), STORE, DAY);

    expect(outcome).toEqual({ read: 102, events: 120, written: 1, kept: 0, deleted: 102 });
    expect(day.items.size).toBe(1);
    const [item] = [...day.items.values()];
    expect(item?.expiresAt).toBe(Math.ceil((events[119] as HistoryEvent).acceptedAt / 1000) + 90 * 86_400);
    expect(await day.read()).toEqual(before);
  });

  it('writes and deletes nothing on a compacted day, and the same packs whatever layout it starts from', async () => {
    const events = dayEvents(400);
    const trickleDay = memoryDay(7);
    await trickleDay.store(trickle(events));
    await compactHistoryDay(deps(trickleDay.compactable, 6_000), STORE, DAY);
    const compacted = [...trickleDay.items.keys()].sort();
    expect(compacted.length).toBeGreaterThan(3);

    // Batches of up to 10 events, overlapping in time, stored in another order: the same packs.
    const batchedDay = memoryDay(3);
    const batches: HistoryEvent[][] = [];
    for (let block = 0; block < events.length; block += 40) {
      for (let k = 0; k < 4; k++) batches.push(events.slice(block, block + 40).filter((_, i) => i % 4 === k));
    }
    await batchedDay.store(batches);
    await compactHistoryDay(deps(batchedDay.compactable, 6_000), STORE, DAY);
    expect([...batchedDay.items.keys()].sort()).toEqual(compacted);

    trickleDay.ops.length = 0;
    const again = await compactHistoryDay(deps(trickleDay.compactable, 6_000), STORE, DAY);
    expect(again).toMatchObject({
      read: compacted.length,
      events: 400,
      written: 0,
      kept: compacted.length,
      deleted: 0,
    });
    expect(trickleDay.ops.filter((op) => op !== 'items')).toEqual([]);
  });

  it('loses nothing whatever put or delete it stops at, and the next run ends where an uninterrupted one does', async () => {
    const events = dayEvents(90);
    const clean = memoryDay(5);
    await clean.store(trickle(events));
    const expected = await clean.read();
    await compactHistoryDay(deps(clean.compactable, 3_000), STORE, DAY);
    const finalIds = [...clean.items.keys()].sort();
    const mutations = clean.ops.filter((op) => op !== 'items').length;
    expect(mutations).toBeGreaterThan(6);

    for (let crashAt = 1; crashAt <= mutations; crashAt++) {
      const day = memoryDay(5);
      await day.store(trickle(events));
      let calls = 0;
      const crash = () => {
        if (++calls === crashAt) throw new Error(`crash at mutation ${crashAt}`);
      };
      const crashing: CompactableHistory = {
        ...day.compactable,
        put: async (...args) => {
          crash();
          await day.compactable.put(...args);
        },
        remove: async (...args) => {
          crash();
          await day.compactable.remove(...args);
        },
      };
      await expect(compactHistoryDay(deps(crashing, 3_000), STORE, DAY)).rejects.toThrow(
        `crash at mutation ${crashAt}`,
      );
      expect(await day.read(), `after a crash at mutation ${crashAt}`).toEqual(expected);
      await compactHistoryDay(deps(day.compactable, 3_000), STORE, DAY);
      expect([...day.items.keys()].sort(), `the run after a crash at mutation ${crashAt}`).toEqual(finalIds);
      expect(await day.read()).toEqual(expected);
    }
  });

  it('deletes what it has put as it goes, before the day is read to its end (memory bounded by a pack)', async () => {
    const day = memoryDay(10);
    await day.store(trickle(dayEvents(300)));
    await compactHistoryDay(deps(day.compactable, 4_000), STORE, DAY);
    const firstRemove = day.ops.findIndex((op) => op.startsWith('remove'));
    const lastPage = day.ops.lastIndexOf('items');
    expect(firstRemove).toBeGreaterThan(0);
    expect(firstRemove).toBeLessThan(lastPage);
  });

  it('compacts a day again after a late event, rewriting only what changed', async () => {
    const day = memoryDay();
    const events = dayEvents(200);
    await day.store(trickle(events.slice(0, 199)));
    await compactHistoryDay(deps(day.compactable, 5_000), STORE, DAY);
    const first = new Set(day.items.keys());
    await day.store([[events[199] as HistoryEvent]]);
    const expected = await day.read();
    expect(expected).toHaveLength(200);

    const again = await compactHistoryDay(deps(day.compactable, 5_000), STORE, DAY);

    expect(again).toMatchObject({ events: 200, written: 1 });
    expect(await day.read()).toEqual(expected);
    expect([...day.items.keys()].filter((id) => !first.has(id))).toHaveLength(1);
  });

  it('leaves a day that is not over, and stops with RetryLater when out of time (what it did stands)', async () => {
    const day = memoryDay(2);
    await day.store(trickle(dayEvents(30)));
    const open = await compactHistoryDay(
      { ...deps(day.compactable), clock: { now: () => T0 + DAY_MS - 1 } },
      STORE,
      DAY,
    );
    expect(open).toEqual({ skipped: 'the day is not over' });
    expect(day.ops).toEqual([]);

    const expected = await day.read();
    let pages = 0;
    await expect(compactHistoryDay(deps(day.compactable, 1_000), STORE, DAY, () => ++pages < 5)).rejects.toThrow(
      RetryLater,
    );
    expect(await day.read()).toEqual(expected);
    await compactHistoryDay(deps(day.compactable, 1_000), STORE, DAY);
    expect(await day.read()).toEqual(expected);
  });
});

describe('compactHistoryDay deletes', () => {
  it('deletes a thousand items at a time, asking for time between, and the retry deletes the rest', async () => {
    const day = memoryDay(5_000);
    const events = Array.from({ length: 2_100 }, (_, n) => event(n, T0 + n * 1_000));
    await day.store(events.map((e) => [e]));
    const expected = await day.read();
    await expect(compactHistoryDay(deps(day.compactable), STORE, DAY, () => false)).rejects.toThrow(RetryLater);
    expect(day.ops.filter((op) => op.startsWith('remove'))).toEqual(['remove 1000']);
    expect(day.items.size).toBe(2_100 - 1_000 + 1);
    expect(await day.read()).toEqual(expected);
    expect(await compactHistoryDay(deps(day.compactable), STORE, DAY)).toMatchObject({
      written: 0,
      kept: 1,
      deleted: 1_100,
    });
    expect(day.items.size).toBe(1);
    expect(await day.read()).toEqual(expected);
  });
});

describe('compactionSchedule', () => {
  const message = (storeId: string, n: number, at: number): IngestMessage => {
    const { storeId: _s, ...rest } = event(n, at);
    return { v: 1, storeId, ...rest };
  };

  it('sets one timer per store and day written, hours after the day ends, once per instance', async () => {
    const set: Timer[] = [];
    let now = T0 + 3_600_000;
    const written = compactionSchedule({ timers: { set: async (t) => void set.push(t) }, clock: { now: () => now } });
    const buffer = new HistoryBuffer();
    const history: EventHistory = { put: async () => undefined, page: async () => ({ packs: [] }) };
    for (let batch = 0; batch < 3; batch++) {
      buffer.add(message('st_a', batch, T0 + batch));
      buffer.add(message('st_b', batch + 10, T0 + batch));
      buffer.add(message('st_a', batch + 20, T0 + DAY_MS + batch));
      await buffer.flush({ history, keepDays: 90, written });
    }
    expect(set.map((t) => t.name).sort()).toEqual([
      compactionTimerName('st_a', DAY),
      compactionTimerName('st_a', '2026-11-02'),
      compactionTimerName('st_b', DAY),
    ]);
    const timer = set.find((t) => t.name === compactionTimerName('st_a', DAY));
    expect(timer?.payload).toEqual({ v: 1, kind: 'history', storeId: 'st_a', day: DAY });
    expect(timer?.at).toBe(compactionAt('st_a', DAY));
    expect(timer?.at).toBeGreaterThanOrEqual(T0 + DAY_MS + 3_600_000);
    expect(timer?.at).toBeLessThan(T0 + DAY_MS + 4 * 3_600_000);
    expect(compactionTimerName('st_abcdefghijklmnopqrst', DAY).length).toBeLessThanOrEqual(64);

    // A late event of a day whose compaction has run: compacted again a minute later.
    now = T0 + 2 * DAY_MS;
    await written.written('st_a', DAY);
    expect(set.at(-1)?.at).toBe(now + 60_000);
    expect(set).toHaveLength(4);
  });
});
