/**
 * How many contacts a store has per creation-time bucket, so the contact export can answer its total and find the start
 * of any page without walking the contacts before it (docs/contacts.md "Paging").
 *
 * Counters are kept at five levels, each bucket named by its first second: 30-day periods (from the epoch), days,
 * hours, minutes and seconds. Every contact write that adds a contact (or moves its creation time) adds one to the five
 * buckets holding that time. Any range of creation times is then a run of whole buckets — whole periods in the middle,
 * days, hours, minutes and seconds at its edges — so its total reads at most (periods in the range, about 12 a year)
 * + 2 × (29 + 23 + 59 + 59) counters, and finding the contact of rank k descends from the bucket holding it through its
 * ≤ 30 days, ≤ 24 hours, ≤ 60 minutes and ≤ 60 seconds, then reads the keys of the contacts before it in that second.
 */

/** Bucket sizes in seconds, coarsest first: 30 days, day, hour, minute, second (each a whole number of the next). */
export const COUNT_LEVELS = [2_592_000, 86_400, 3_600, 60, 1] as const;
export type CountLevel = 0 | 1 | 2 | 3 | 4;
const FINEST: CountLevel = 4;

/** The latest creation time a bound can name (12 digits: the width of the sort key). */
export const LATEST_SECOND = 999_999_999_999;

export interface Bucket {
  /** Its first second. */
  readonly start: number;
  readonly n: number;
}

/** Reading the counters (the export). */
export interface ContactCounts {
  /** True when the store's counters hold every contact (new stores; older ones after `store count-contacts`). */
  exact(storeId: string): Promise<boolean>;
  /** The counters of `level` whose bucket starts within [from, to], in order; empty buckets may be absent. */
  buckets(storeId: string, level: CountLevel, from: number, to: number): Promise<Bucket[]>;
}

/** The buckets (one per level) holding creation time `second`. */
export const bucketsOf = (second: number): { level: CountLevel; start: number }[] =>
  COUNT_LEVELS.map((size, level) => ({ level: level as CountLevel, start: second - (second % size) }));

/** A run of whole buckets of one level: those starting within [from, to]. */
export interface Segment {
  readonly level: CountLevel;
  readonly from: number;
  readonly to: number;
}

/** The range [start, end] (seconds, inclusive) as runs of whole buckets, in time order, coarsest possible. */
export const cover = (start: number, end: number, level: CountLevel = 0): Segment[] => {
  if (end < start) return [];
  const size = COUNT_LEVELS[level];
  if (level === FINEST) return [{ level, from: start, to: end }];
  const firstWhole = Math.ceil(start / size) * size;
  const afterLastWhole = Math.floor((end + 1) / size) * size;
  const finer = (level + 1) as CountLevel;
  if (firstWhole >= afterLastWhole) return cover(start, end, finer);
  return [
    ...cover(start, firstWhole - 1, finer),
    { level, from: firstWhole, to: afterLastWhole - size },
    ...cover(afterLastWhole, end, finer),
  ];
};

/** Where the contact of a given rank is: `skip` contacts into creation second `second`. */
export interface Rank {
  readonly second: number;
  readonly skip: number;
}

/** The counters of a range, fetched once and used for both the total and the search of a page start. */
export interface RangeCounts {
  readonly total: number;
  /** Where the contact of 0-based rank `k` is; undefined past the end (or when the counters disagree for a moment). */
  locate(k: number): Promise<Rank | undefined>;
}

const positive = (buckets: readonly Bucket[]) => buckets.filter((b) => b.n > 0);

export const rangeCounts = async (
  counts: ContactCounts,
  storeId: string,
  start: number,
  end: number,
): Promise<RangeCounts> => {
  const segments = cover(start, end);
  const fetched = await Promise.all(
    segments.map(async (s) => ({
      level: s.level,
      buckets: positive(await counts.buckets(storeId, s.level, s.from, s.to)),
    })),
  );
  const total = fetched.reduce((sum, s) => sum + s.buckets.reduce((n, b) => n + b.n, 0), 0);

  const locate = async (k: number): Promise<Rank | undefined> => {
    if (k < 0 || k >= total) return undefined;
    let before = 0;
    let runs = fetched;
    for (;;) {
      let found: { level: CountLevel; bucket: Bucket } | undefined;
      for (const run of runs) {
        for (const bucket of run.buckets) {
          if (before + bucket.n > k) {
            found = { level: run.level, bucket };
            break;
          }
          before += bucket.n;
        }
        if (found) break;
      }
      // Levels are written one after the other: a coarse counter may briefly count a contact its finer ones do not yet.
      if (!found) return undefined;
      const { level, bucket } = found;
      if (level === FINEST) return { second: bucket.start, skip: k - before };
      const finer = (level + 1) as CountLevel;
      const size = COUNT_LEVELS[level];
      const children = await counts.buckets(storeId, finer, bucket.start, bucket.start + size - 1);
      runs = [{ level: finer, buckets: positive(children) }];
    }
  };
  return { total, locate };
};

/** What counting a store's contacts again needs (`npm run admin -- store count-contacts`). */
export interface RecountDeps {
  readonly stores: { get(storeId: string): Promise<unknown> };
  /** Counts the store's contacts and writes its counters whole: the count, or undefined when writes kept racing. */
  recount(storeId: string, progress: (read: number) => void): Promise<number | undefined>;
}

/**
 * Counts a store's contacts again, so its export uses the counters: stores created before they existed, or marked
 * stale after a write that could not adjust them. Safe to run at any time; best when the store is quiet.
 */
export const countStoreContacts = async (
  deps: RecountDeps,
  storeId: string,
  progress: (read: number) => void = () => {},
): Promise<number | undefined> => {
  if (!(await deps.stores.get(storeId))) throw new Error(`No store ${storeId}`);
  return deps.recount(storeId, progress);
};
