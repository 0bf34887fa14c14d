import { randomBytes } from 'node:crypto';
import { brotliCompressSync, constants } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { brotliStored } from '#shared/domain/brotli.ts';
import { type EventHistory, HistoryBuffer, readHistory } from '#shared/domain/ingest/event-history.ts';
import { packEvents, STORED_PACK_JSON, unpackEvents } from '#shared/domain/ingest/history-pack.ts';
import type { IngestMessage } from '#shared/domain/ingest/model.ts';

const DAY = Date.UTC(2026, 10, 1);
const message = (n: number, at: number, storeId = 'st_a'): IngestMessage => ({
  v: 1,
  storeId,
  sourceId: `src-${n}`,
  endpoint: 'carts/create',
  interface: 'general',
  acceptedAt: at,
  data: { token: `cart-${n}`, email: `c${n}@example.com`, line_items: [{ product_id: `p-${n % 7}`, quantity: 1 }] },
});

/** The table in memory: an item per pack, keyed by its store, first event and bytes, as the adapter keeps them. */
const tableHistory = () => {
  const items = new Map<string, { storeId: string; day: string; firstAt: number; bytes: Uint8Array }>();
  let writes = 0;
  const history: EventHistory = {
    async put(storeId, pack) {
      writes++;
      const day = new Date(pack.firstAt).toISOString().slice(0, 10);
      items.set(`${storeId}#${pack.firstAt}#${Buffer.from(pack.bytes).toString('base64')}`, {
        storeId,
        day,
        firstAt: pack.firstAt,
        bytes: pack.bytes,
      });
    },
    async page(storeId, day) {
      const packs = [...items.values()]
        .filter((i) => i.storeId === storeId && i.day === day)
        .sort((a, b) => a.firstAt - b.firstAt)
        .map((i) => i.bytes);
      return { packs };
    },
  };
  return { history, items, writes: () => writes };
};

const read = async (history: EventHistory, storeId: string, from: number, to: number) => {
  const all = [];
  for await (const page of readHistory(history, storeId, from, to)) all.push(...page);
  return all;
};

describe('packEvents bytes', () => {
  const packed = (count: number) => {
    const events = Array.from({ length: count }, (_, n) => {
      const { v: _v, ...event } = message(n, DAY + n);
      return event;
    });
    const json = Buffer.from(
      JSON.stringify(events.map((e) => [e.acceptedAt, e.sourceId, e.endpoint, e.interface, 0, e.data])),
    );
    return { events, json };
  };

  it('are, over STORED_PACK_JSON of JSON, the bytes packs had before (Brotli quality 5, text mode, no size hint)', async () => {
    // A batch delivered again across a deploy must pack to the same bytes, hence the same item.
    for (const count of [10, 200]) {
      const { events, json } = packed(count);
      expect(json.length).toBeGreaterThan(STORED_PACK_JSON);
      const before = brotliCompressSync(json, {
        params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT },
      });
      const [pack] = await packEvents(events);
      expect(Buffer.from(pack?.bytes ?? []).equals(before), `${count} events (${json.length} B of JSON)`).toBe(true);
      expect((await unpackEvents('st_a', pack?.bytes ?? new Uint8Array())).map((e) => e.sourceId)).toEqual(
        events.map((e) => e.sourceId),
      );
    }
  });

  it('are, up to STORED_PACK_JSON of JSON, the JSON in a stored Brotli stream (what any Brotli decoder reads)', async () => {
    for (const count of [1, 2]) {
      const { events, json } = packed(count);
      expect(json.length).toBeLessThanOrEqual(STORED_PACK_JSON);
      const [pack] = await packEvents(events);
      expect(Buffer.from(pack?.bytes ?? []).equals(brotliStored(json)), `${count} events`).toBe(true);
      expect(await unpackEvents('st_a', pack?.bytes ?? new Uint8Array())).toEqual(events);
    }
  });

  it('reads each event once when a batch packed before small packs were stored is delivered again after', async () => {
    // The deploy that began storing small packs: the same events, written before it compressed and after it stored,
    // are two items of the day; the reader keeps each source id once, as for an event applied in two batches.
    const table = tableHistory();
    const batch = [0, 1].map((n) => message(n, DAY + n * 100));
    const { v: _v, ...first } = batch[0] as IngestMessage;
    const { v: _w, ...second } = batch[1] as IngestMessage;
    const json = Buffer.from(
      JSON.stringify([first, second].map((e) => [e.acceptedAt, e.sourceId, e.endpoint, e.interface, 0, e.data])),
    );
    const compressed = brotliCompressSync(json, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT },
    });
    await table.history.put(
      'st_a',
      {
        bytes: compressed,
        count: 2,
        firstAt: first.acceptedAt,
        firstSourceId: first.sourceId,
        lastAt: second.acceptedAt,
      },
      0,
    );
    const buffer = new HistoryBuffer();
    for (const m of batch) buffer.add(m);
    await buffer.flush({ history: table.history, keepDays: 90 });
    expect(table.items.size).toBe(2);
    const events = await read(table.history, 'st_a', DAY, DAY + 86_400_000);
    expect(events).toEqual([first, second]);
  });
});

describe('event history packs', () => {
  it('round-trips events through a compressed pack, smaller than their JSON', async () => {
    const events = Array.from({ length: 200 }, (_, i) => {
      const { v: _v, ...event } = message(i, DAY + i * 1000);
      return event;
    });
    const [pack, ...more] = await packEvents(events);
    expect(more).toEqual([]);
    expect(pack?.count).toBe(200);
    expect(pack?.firstSourceId).toBe('src-0');
    expect(pack?.bytes.length).toBeLessThan(JSON.stringify(events).length / 5);
    expect(await unpackEvents('st_a', pack?.bytes as Uint8Array)).toEqual(events);
  });

  it('splits a group that compresses larger than the bound, keeping every event in order', async () => {
    const events = Array.from({ length: 64 }, (_, i) => {
      const { v: _v, ...event } = message(i, DAY + i);
      return {
        ...event,
        data: { noise: randomBytes(400).toString('base64') },
      };
    });
    const packs = await packEvents(events, 4_000);
    expect(packs.length).toBeGreaterThan(1);
    for (const pack of packs) expect(pack.bytes.length <= 4_000 || pack.count === 1).toBe(true);
    const back = (await Promise.all(packs.map((p) => unpackEvents('st_a', p.bytes)))).flat();
    expect(back.map((e) => e.sourceId)).toEqual(events.map((e) => e.sourceId));
  });

  it('writes one item per store and day for a worker batch, and reads it back in acceptance order', async () => {
    const table = tableHistory();
    const buffer = new HistoryBuffer();
    // A batch of 10: two stores, out of order, across two minutes (one pack per store: the minute does not split it).
    for (const n of [3, 1, 2, 0, 4]) buffer.add(message(n, DAY + n * 1000));
    for (const n of [5, 6]) buffer.add(message(n, DAY + 60_000 + n, 'st_b'));
    for (const n of [7, 8, 9]) buffer.add(message(n, DAY + 61_000 + n));
    expect(await buffer.flush({ history: table.history, keepDays: 90 })).toBe(2);
    expect(buffer.size).toBe(0);
    expect(table.items.size).toBe(2);
    const events = await read(table.history, 'st_a', DAY, DAY + 86_400_000);
    expect(events.map((e) => e.sourceId)).toEqual([
      'src-0',
      'src-1',
      'src-2',
      'src-3',
      'src-4',
      'src-7',
      'src-8',
      'src-9',
    ]);
    expect(events[0]).toMatchObject({ storeId: 'st_a', endpoint: 'carts/create', data: { token: 'cart-0' } });
    expect((await read(table.history, 'st_b', DAY, DAY + 86_400_000)).map((e) => e.sourceId)).toEqual([
      'src-5',
      'src-6',
    ]);
  });

  it('keeps each event once when a batch is delivered again, whole or in part', async () => {
    const table = tableHistory();
    const buffer = new HistoryBuffer();
    const batch = [0, 1, 2, 3].map((n) => message(n, DAY + n * 100));
    for (const m of batch) buffer.add(m);
    await buffer.flush({ history: table.history, keepDays: 90 });
    // The same batch again (a redelivery): the same pack, so the same item written again.
    for (const m of batch) buffer.add(m);
    await buffer.flush({ history: table.history, keepDays: 90 });
    expect(table.items.size).toBe(1);
    expect(table.writes()).toBe(2);
    // Two of its events again in a later batch with a new one (their first handling failed after they applied).
    for (const m of [batch[2], batch[3], message(4, DAY + 400)]) buffer.add(m as IngestMessage);
    await buffer.flush({ history: table.history, keepDays: 90 });
    const events = await read(table.history, 'st_a', DAY, DAY + 86_400_000);
    expect(events.map((e) => e.sourceId)).toEqual(['src-0', 'src-1', 'src-2', 'src-3', 'src-4']);
  });

  it('reads only the range asked, across days, each day in order', async () => {
    const table = tableHistory();
    const buffer = new HistoryBuffer();
    for (let d = 0; d < 6; d++) {
      for (let i = 0; i < 3; i++) buffer.add(message(d * 10 + i, DAY + d * 86_400_000 + i * 3_600_000));
    }
    // A pack per day: a pack's day (its partition) is its events' day.
    expect(await buffer.flush({ history: table.history, keepDays: 90 })).toBe(6);
    const from = DAY + 86_400_000 + 3_600_000; // day 1, 01:00 (its second event)
    const to = DAY + 4 * 86_400_000 + 3_600_000; // day 4, 01:00, exclusive
    const events = await read(table.history, 'st_a', from, to);
    expect(events.map((e) => e.sourceId)).toEqual([
      'src-11',
      'src-12',
      'src-20',
      'src-21',
      'src-22',
      'src-30',
      'src-31',
      'src-32',
      'src-40',
    ]);
  });

  it('keeps the retention from the last event of the pack', async () => {
    const kept: number[] = [];
    const buffer = new HistoryBuffer();
    buffer.add(message(0, DAY + 1_500));
    buffer.add(message(1, DAY + 2_500));
    await buffer.flush({
      history: { put: async (_s, _p, expiresAt) => void kept.push(expiresAt) },
      keepDays: 90,
    });
    expect(kept).toEqual([Math.ceil((DAY + 2_500) / 1000) + 90 * 86_400]);
  });
});
