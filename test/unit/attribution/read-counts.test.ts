/**
 * Counters over a range (`shared/domain/attribution/read-counts.ts`): a long range is read as its whole months and the
 * days around them, and answers the same totals as its days summed, for any range; a store whose months are not kept
 * is read from its days until they are rebuilt.
 */
import { describe, expect, it } from 'vitest';
import type { AttributionStore } from '#shared/domain/attribution/ports.ts';
import { countsReader, DAY_SERIES_MAX_DAYS, splitRange } from '#shared/domain/attribution/read-counts.ts';
import { memoryAttribution } from '#test/support/memory/attribution.ts';

const DAY_MS = 86_400_000;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const START = Date.parse('2025-01-01T00:00:00Z');

/** Two years of counts (or `days`): day i has i % 7 emails and, every third day, an order of i cents in EUR. */
const seeded = async (options: { legacy?: boolean; days?: number } = {}) => {
  const memory = memoryAttribution(options);
  for (let i = 0; i < (options.days ?? 730); i++) {
    await memory.store.add('st_a', ['store'], day(START + i * DAY_MS), {
      emailed: i % 7,
      ...(i % 3 === 0 ? { recoveredOrders: 1, recoveredRevenue_EUR: i / 100 } : {}),
    });
  }
  return memory;
};

/** The store, counting its reads of days and months. */
const counting = (store: AttributionStore) => {
  const reads = { days: 0, periods: 0 };
  const spied: AttributionStore = {
    ...store,
    days: (...args) => {
      reads.days++;
      return store.days(...args);
    },
    periods: (...args) => {
      reads.periods++;
      return store.periods(...args);
    },
  };
  return { spied, reads };
};

/** The store, noting how many keys (days and months) each of its reads by key asks for. */
const keyCounting = (store: AttributionStore) => {
  const keys: number[] = [];
  const spied: AttributionStore = {
    ...store,
    periods: (storeId, asks) => {
      keys.push(asks.reduce((n, ask) => n + ask.days.length + ask.months.length, 0));
      return store.periods(storeId, asks);
    },
  };
  return { spied, keys };
};

/** The brute-force answer: every day of the range summed. */
const bruteForce = async (store: AttributionStore, from: string, to: string) => {
  const totals = new Map<string, number>();
  for (const { counts } of await store.days('st_a', 'store', from, to)) {
    for (const [name, n] of Object.entries(counts)) totals.set(name, (totals.get(name) ?? 0) + n);
  }
  return totals;
};

const rounded = (totals: ReadonlyMap<string, number>) =>
  Object.fromEntries([...totals].map(([name, n]) => [name, Math.round(n * 100) / 100]));

describe('splitRange', () => {
  it('splits a range into the days before its first whole month, its whole months and the days after', () => {
    expect(splitRange('2025-11-26', '2026-11-25')).toEqual({
      days: [
        { from: '2025-11-26', to: '2025-11-30' },
        { from: '2026-11-01', to: '2026-11-25' },
      ],
      months: { from: '2025-12', to: '2026-10' },
    });
    expect(splitRange('2026-01-01', '2026-12-31')).toEqual({ days: [], months: { from: '2026-01', to: '2026-12' } });
    expect(splitRange('2024-02-01', '2024-02-29')).toEqual({ days: [], months: { from: '2024-02', to: '2024-02' } });
    expect(splitRange('2024-02-01', '2024-02-28')).toEqual({ days: [{ from: '2024-02-01', to: '2024-02-28' }] });
    expect(splitRange('2026-01-15', '2026-02-14')).toEqual({ days: [{ from: '2026-01-15', to: '2026-02-14' }] });
    expect(splitRange('2025-12-31', '2026-02-01')).toEqual({
      days: [
        { from: '2025-12-31', to: '2025-12-31' },
        { from: '2026-02-01', to: '2026-02-01' },
      ],
      months: { from: '2026-01', to: '2026-01' },
    });
  });

  it('takes the last month whole when the range reaches today (its month item is its days so far)', () => {
    expect(splitRange('2025-11-26', '2026-11-25', '2026-11-25')).toEqual({
      days: [{ from: '2025-11-26', to: '2025-11-30' }],
      months: { from: '2025-12', to: '2026-11' },
    });
    expect(splitRange('2025-11-26', '2026-12-10', '2026-11-25')).toEqual({
      days: [{ from: '2025-11-26', to: '2025-11-30' }],
      months: { from: '2025-12', to: '2026-12' },
    });
    expect(splitRange('2026-11-01', '2026-11-25', '2026-11-25')).toEqual({
      days: [],
      months: { from: '2026-11', to: '2026-11' },
    });
    // A range that ends before today, or within the month it starts in, splits as it did.
    expect(splitRange('2025-11-26', '2026-11-24', '2026-11-25')).toEqual(splitRange('2025-11-26', '2026-11-24'));
    expect(splitRange('2026-11-10', '2026-11-25', '2026-11-25')).toEqual({
      days: [{ from: '2026-11-10', to: '2026-11-25' }],
    });
  });
});

describe('countsReader', () => {
  it('answers the sum of the days for any range, reading months for ranges past the day series', async () => {
    const memory = await seeded();
    const { spied, reads } = counting(memory.store);
    const read = countsReader(spied, 'st_a');
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 48_271) % 2_147_483_647;
      return seed % n;
    };
    for (let k = 0; k < 200; k++) {
      const from = START - 20 * DAY_MS + random(760) * DAY_MS;
      const to = from + random(366) * DAY_MS;
      const range = { from: day(from), to: day(to) };
      const { totals, series } = await read('store', range);
      expect(rounded(totals), `${range.from}…${range.to}`).toEqual(
        rounded(await bruteForce(memory.store, range.from, range.to)),
      );
      const days = (to - from) / DAY_MS + 1;
      expect(series.grain).toBe(days <= DAY_SERIES_MAX_DAYS ? 'day' : 'month');
      const points = series.points.map((p) => ('day' in p ? p.day : p.month));
      expect(points).toEqual([...points].sort());
    }
    expect(reads.periods).toBeGreaterThan(0);
  });

  it('reads a year in one read by key of the days around its whole months and the months, one point per month', async () => {
    const memory = await seeded();
    const { spied, reads } = counting(memory.store);
    const { series } = await countsReader(spied, 'st_a')('store', { from: '2025-11-26', to: '2026-11-25' });
    expect(reads).toEqual({ days: 0, periods: 1 });
    expect(series.grain).toBe('month');
    expect(series.points.map((p) => ('month' in p ? p.month : p.day))).toEqual([
      '2025-11',
      '2025-12',
      ...Array.from({ length: 11 }, (_, i) => `2026-${String(i + 1).padStart(2, '0')}`),
    ]);
  });

  it('answers the same for a range that reaches today, reading its last month from the month item', async () => {
    // Counted up to today (day 600) and not after, as the service counts.
    const today = START + 600 * DAY_MS;
    const memory = await seeded({ days: 601 });
    const { spied, keys } = keyCounting(memory.store);
    const read = countsReader(spied, 'st_a', day(today));
    const byDays = countsReader(memory.store, 'st_a');
    let seed = 11;
    const random = (n: number) => {
      seed = (seed * 48_271) % 2_147_483_647;
      return seed % n;
    };
    for (let k = 0; k < 100; k++) {
      const to = today + random(40) * DAY_MS;
      const range = { from: day(to - (DAY_SERIES_MAX_DAYS + random(300)) * DAY_MS), to: day(to) };
      const answer = await read('store', range);
      expect(rounded(answer.totals), `${range.from}…${range.to}`).toEqual(
        rounded(await bruteForce(memory.store, range.from, range.to)),
      );
      const expected = await byDays('store', range);
      const points = (counts: typeof answer) =>
        counts.series.points.map((p) => ({
          at: 'day' in p ? p.day : p.month,
          counts: rounded(new Map(Object.entries(p.counts))),
        }));
      expect(points(answer), `${range.from}…${range.to}`).toEqual(points(expected));
    }
    // A year to today: the 7 days before its first whole month and 12 months, not 7 + 11 months + 24 days.
    keys.length = 0;
    await read('store', { from: day(today - 364 * DAY_MS), to: day(today) });
    expect(day(today)).toBe('2026-08-24');
    expect(keys).toEqual([7 + 12]);
  });

  it('reads a scope wanted for its totals as its months and the days around them, beside the others', async () => {
    const today = START + 600 * DAY_MS;
    const memory = await seeded({ days: 601 });
    await memory.store.add('st_a', ['events'], day(today - 3 * DAY_MS), { 'carts/create': 3 });
    const { spied, keys } = keyCounting(memory.store);
    const read = countsReader(spied, 'st_a', day(today));
    for (let back = 0; back < 60; back++) {
      const range = { from: day(today - back * DAY_MS), to: day(today) };
      const many = await read.many(['store', 'events'], range, { totalsOnly: ['store'] });
      expect(rounded(many.get('store')?.totals ?? new Map()), range.from).toEqual(
        rounded(await bruteForce(memory.store, range.from, range.to)),
      );
      // The activity scope, kept per day only, keeps its day series.
      expect(many.get('events')?.series.grain).toBe('day');
      expect(many.get('events')?.totals.get('carts/create')).toBe(back >= 3 ? 3 : undefined);
    }
    // 30 days to 2026-08-24: the store's 6 days of July and August's month, and the events' 30 days, in one read.
    keys.length = 0;
    await read.many(['store', 'events'], { from: day(today - 29 * DAY_MS), to: day(today) }, { totalsOnly: ['store'] });
    expect(keys).toEqual([6 + 1 + 30]);
  });

  it('reads a store whose months are not kept from its days, and from its months once rebuilt', async () => {
    const memory = await seeded({ legacy: true });
    memory.upgrade();
    // Counted after the upgrade: on its day and its month, while the months before it hold nothing.
    await memory.store.add('st_a', ['store'], '2026-10-15', { emailed: 1000 });
    const range = { from: '2025-11-26', to: '2026-11-25' };
    const expected = rounded(await bruteForce(memory.store, range.from, range.to));

    const before = counting(memory.store);
    expect(rounded((await countsReader(before.spied, 'st_a')('store', range)).totals)).toEqual(expected);
    expect(before.reads.days).toBe(1);

    // Its totals over a short range to today (`many`'s `totalsOnly`) are read from its days too.
    const short = { from: '2026-10-10', to: '2026-11-25' };
    const legacyMany = await countsReader(memory.store, 'st_a', short.to).many(['store'], short, {
      totalsOnly: ['store'],
    });
    expect(rounded(legacyMany.get('store')?.totals ?? new Map())).toEqual(
      rounded(await bruteForce(memory.store, short.from, short.to)),
    );

    await memory.store.rebuildMonths('st_a', ['store']);
    const after = counting(memory.store);
    expect(rounded((await countsReader(after.spied, 'st_a')('store', range)).totals)).toEqual(expected);
    expect(after.reads).toEqual({ days: 0, periods: 1 });
  });

  it('reads the activity counters, kept per day only, from their days at any range', async () => {
    const { store } = memoryAttribution();
    await store.add('st_a', ['events', 'store'], '2026-03-15', { 'carts/create': 2, emailed: 1 });
    expect(await store.months('st_a', 'events', '0000-01', '9999-12')).toEqual([]);
    expect(await store.months('st_a', 'store', '0000-01', '9999-12')).toHaveLength(1);
    const { spied, reads } = counting(store);
    const { totals, series } = await countsReader(spied, 'st_a')('events', { from: '2025-11-26', to: '2026-11-25' });
    expect(totals.get('carts/create')).toBe(2);
    expect(series).toEqual({
      grain: 'month',
      points: [{ month: '2026-03', counts: { 'carts/create': 2, emailed: 1 } }],
    });
    expect(reads).toEqual({ days: 1, periods: 0 });
  });

  it('reads several scopes over a short range in one read by key, and each alike over longer ones', async () => {
    const memory = await seeded();
    await memory.store.add('st_a', ['events'], '2026-11-20', { 'carts/create': 3 });
    const { spied, reads } = counting(memory.store);
    const read = countsReader(spied, 'st_a');
    for (const range of [
      { from: '2026-10-27', to: '2026-11-25' },
      { from: '2026-10-01', to: '2026-11-25' },
      { from: '2025-11-26', to: '2026-11-25' },
    ]) {
      const many = await read.many(['store', 'events', 'webhooks'], range);
      for (const scope of ['store', 'events', 'webhooks']) {
        const one = await countsReader(memory.store, 'st_a')(scope, range);
        expect(rounded(many.get(scope)?.totals ?? new Map()), `${scope} ${range.from}`).toEqual(rounded(one.totals));
        expect(many.get(scope)?.series.grain).toBe(one.series.grain);
      }
    }
    // 30 days × 3 scopes: one read by key; 56 days × 3 (168 keys): a Query each; a year: the store's days and months
    // by key (one read), the activity scopes' days by Query.
    expect(reads.periods).toBe(1 + 1);
  });
});
