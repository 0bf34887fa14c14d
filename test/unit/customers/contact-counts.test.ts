/**
 * The contact counters' arithmetic (shared/domain/contacts/contact-counts.ts): any range of creation times as whole
 * buckets, its total, and the creation second of any rank, against a brute force over random stores.
 */
import { describe, expect, it } from 'vitest';
import {
  type Bucket,
  bucketsOf,
  COUNT_LEVELS,
  type ContactCounts,
  type CountLevel,
  cover,
  LATEST_SECOND,
  rangeCounts,
} from '#shared/domain/contacts/contact-counts.ts';

/** A seeded generator, so a failure replays. */
const random = (seed: number) => () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
  return seed / 2_147_483_648;
};

/** Counters as the repository keeps them, in memory, with the number of counters each read returned. */
const memoryCounts = (seconds: readonly number[]) => {
  const levels = COUNT_LEVELS.map(() => new Map<number, number>());
  for (const second of seconds) {
    for (const { level, start } of bucketsOf(second)) levels[level]?.set(start, (levels[level]?.get(start) ?? 0) + 1);
  }
  let read = 0;
  const counts: ContactCounts = {
    exact: async () => true,
    buckets: async (_storeId: string, level: CountLevel, from: number, to: number) => {
      const found: Bucket[] = [...(levels[level] ?? new Map<number, number>()).entries()]
        .filter(([start]) => start >= from && start <= to)
        .sort(([a], [b]) => a - b)
        .map(([start, n]) => ({ start, n }));
      read += found.length;
      return found;
    },
  };
  return { counts, read: () => read };
};

describe('cover', () => {
  it('splits any range into aligned whole buckets that tile it exactly, coarsest first in the middle', () => {
    const next = random(7);
    for (let i = 0; i < 2000; i++) {
      const start = Math.floor(next() * 40 * 86_400);
      const end = start + Math.floor(next() ** 3 * 20 * 86_400);
      const segments = cover(start, end);
      let expected = start;
      for (const { level, from, to } of segments) {
        const size = COUNT_LEVELS[level];
        expect(from % size).toBe(0);
        expect(to % size).toBe(0);
        expect(from).toBe(expected);
        expected = to + size;
      }
      expect(expected).toBe(end + 1);
      // At most one run per level on each side of the coarsest.
      expect(segments.length).toBeLessThanOrEqual(2 * COUNT_LEVELS.length - 1);
    }
  });

  it('is one run of days for a whole-day range, and nothing for an empty one', () => {
    expect(cover(86_400, 3 * 86_400 - 1)).toEqual([{ level: 1, from: 86_400, to: 2 * 86_400 }]);
    expect(cover(0, 60 * 86_400 - 1)).toEqual([{ level: 0, from: 0, to: 30 * 86_400 }]);
    expect(cover(10, 9)).toEqual([]);
    expect(cover(5, 5)).toEqual([{ level: 4, from: 5, to: 5 }]);
  });
});

describe('rangeCounts', () => {
  /** Dense and sparse at once: bursts of thousands in a few seconds, and a thin spread over a year. */
  const store = (seed: number) => {
    const next = random(seed);
    const seconds: number[] = [];
    for (let i = 0; i < 3000; i++) seconds.push(1_700_000_000 + Math.floor(next() * 365 * 86_400));
    for (let burst = 0; burst < 3; burst++) {
      const at = 1_700_000_000 + Math.floor(next() * 365 * 86_400);
      for (let i = 0; i < 1500; i++) seconds.push(at + Math.floor(next() * 5));
    }
    return seconds.sort((a, b) => a - b);
  };

  it('gives the total of any range and the creation second of every rank, as a brute force does', async () => {
    for (const seed of [1, 2, 3]) {
      const seconds = store(seed);
      const { counts } = memoryCounts(seconds);
      const next = random(seed + 100);
      for (let q = 0; q < 30; q++) {
        const a = seconds[Math.floor(next() * seconds.length)] ?? 0;
        const b = seconds[Math.floor(next() * seconds.length)] ?? 0;
        const [start, end] = q === 0 ? [0, LATEST_SECOND] : [Math.min(a, b) - (q % 3), Math.max(a, b) + (q % 2)];
        const inRange = seconds.filter((s) => s >= start && s <= end);
        const range = await rangeCounts(counts, 's1', start, end);
        expect(range.total).toBe(inRange.length);
        for (const k of [0, 1, Math.floor(inRange.length / 2), inRange.length - 1].filter((k) => k >= 0)) {
          const second = inRange[k] as number;
          const skip = k - inRange.indexOf(second);
          expect(await range.locate(k)).toEqual({ second, skip });
        }
        expect(await range.locate(inRange.length)).toBeUndefined();
      }
    }
  });

  it('reads a few hundred counters, not the contacts, for the total and a page start of a large store', async () => {
    const seconds = store(9);
    const { counts, read } = memoryCounts(seconds);
    const range = await rangeCounts(counts, 's1', 0, LATEST_SECOND);
    await range.locate(Math.floor(seconds.length * 0.7));
    // A year of 30-day periods, and one descent through ≤ 30 days, ≤ 24 hours, ≤ 60 minutes, ≤ 60 seconds.
    expect(read()).toBeLessThanOrEqual(14 + 30 + 24 + 60 + 60);
    expect(read()).toBeLessThan(seconds.length / 10);
  });
});
