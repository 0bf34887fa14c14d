/**
 * Counters over a range (`shared/domain/attribution/read-counts.ts`): a range is one read of its days, a long one
 * answered per month (its days summed), the same totals as its days for any range.
 */
import { describe, expect, it } from 'vitest';
import type { AttributionStore } from '#shared/domain/attribution/ports.ts';
import { countsReader, DAY_SERIES_MAX_DAYS } from '#shared/domain/attribution/read-counts.ts';
import { memoryAttribution } from '#test/support/memory/attribution.ts';

const DAY_MS = 86_400_000;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const START = Date.parse('2025-01-01T00:00:00Z');

/** Two years of counts: day i has i % 7 emails and, every third day, an order of i cents in EUR. */
const seeded = async () => {
  const memory = memoryAttribution();
  for (let i = 0; i < 730; i++) {
    await memory.store.add('st_a', ['store'], day(START + i * DAY_MS), {
      emailed: i % 7,
      ...(i % 3 === 0 ? { recoveredOrders: 1, recoveredRevenue_EUR: i / 100 } : {}),
    });
  }
  return memory;
};

/** The store, counting its reads of days (a Query) and of days by key. */
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

describe('countsReader', () => {
  it('answers the sum of the days for any range, per month for ranges past the day series', async () => {
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
    expect(reads).toEqual({ days: 200, periods: 0 });
  });

  it('reads a year in one read of its days, one point per month', async () => {
    const memory = await seeded();
    const { spied, reads } = counting(memory.store);
    const { series } = await countsReader(spied, 'st_a')('store', { from: '2025-11-26', to: '2026-11-25' });
    expect(reads).toEqual({ days: 1, periods: 0 });
    expect(series.grain).toBe('month');
    expect(series.points.map((p) => ('month' in p ? p.month : p.day))).toEqual([
      '2025-11',
      '2025-12',
      ...Array.from({ length: 11 }, (_, i) => `2026-${String(i + 1).padStart(2, '0')}`),
    ]);
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
    // 30 days × 3 scopes: one read by key; 56 days × 3 (168 keys) and a year: a Query each.
    expect(reads).toEqual({ days: 6, periods: 1 });
  });
});
