/**
 * Counters over a range of days (issue 17: a year of stats answers in about the time of a single-item read). Every
 * count is kept once, on its scope's day item (`AttributionStore.add`): a range of up to `DAY_SERIES_MAX_DAYS` days
 * answers a per-day series, a longer one a per-month series, each month its days summed here. A range is one Query of
 * its scope's days (a year of a flow with its steps: one page); several scopes over a short range, one batch read by
 * key.
 *
 * Month items (`MONTH#<YYYY-MM>`, in the same partitions) were written beside the days until issue 16 (a second write
 * per scope and batch); they held the same counts as their days, are left where they are and never read.
 */
import type { DayCounts, MonthCounts } from './model.ts';
import { monthOf } from './model.ts';
import type { AttributionStore } from './ports.ts';

/** Ranges up to this many days answer a per-day series, longer ones a per-month series. */
export const DAY_SERIES_MAX_DAYS = 92;

const DAY_MS = 86_400_000;
const dayMs = (day: string) => Date.parse(`${day}T00:00:00Z`);
const dayAt = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Inclusive days of [from, to]. */
export const daysIn = (range: { readonly from: string; readonly to: string }) =>
  (dayMs(range.to) - dayMs(range.from)) / DAY_MS + 1;

/** Every day of [from, to]. */
const eachDay = ({ from, to }: { readonly from: string; readonly to: string }): string[] => {
  const days: string[] = [];
  for (let ms = dayMs(from); ms <= dayMs(to); ms += DAY_MS) days.push(dayAt(ms));
  return days;
};

export type Series =
  | { readonly grain: 'day'; readonly points: readonly DayCounts[] }
  | { readonly grain: 'month'; readonly points: readonly MonthCounts[] };

export interface RangeCounts {
  /** Each counter's sum over the range. */
  readonly totals: ReadonlyMap<string, number>;
  /** Per day (ranges up to `DAY_SERIES_MAX_DAYS`), else per month; only the days or months that have any count. */
  readonly series: Series;
}

const sum = (parts: readonly { readonly counts: Readonly<Record<string, number>> }[]) => {
  const totals = new Map<string, number>();
  for (const { counts } of parts) {
    for (const [name, n] of Object.entries(counts)) totals.set(name, (totals.get(name) ?? 0) + n);
  }
  return totals;
};

/** Days summed into their months (in order). */
const byMonth = (days: readonly DayCounts[]): MonthCounts[] => {
  const months = new Map<string, Record<string, number>>();
  for (const { day, counts } of days) {
    const month = months.get(monthOf(day)) ?? {};
    for (const [name, n] of Object.entries(counts)) month[name] = (month[name] ?? 0) + n;
    months.set(monthOf(day), month);
  }
  return [...months].map(([month, counts]) => ({ month, counts }));
};

type Range = { readonly from: string; readonly to: string };

/** Reads one scope's counters over a range; `many`, several scopes over the same range. */
export interface CountsReader {
  (scope: string, range: Range): Promise<RangeCounts>;
  /** Each scope's counters: one batch read by key when their days fit in one (`BATCH_KEYS`), else one read each. */
  many(scopes: readonly string[], range: Range): Promise<Map<string, RangeCounts>>;
}

/** Keys one batch read takes (DynamoDB's `BatchGetItem`). */
const BATCH_KEYS = 100;

/** A reader of `storeId`'s counters. */
export const countsReader = (store: Pick<AttributionStore, 'days' | 'periods'>, storeId: string): CountsReader => {
  const fromDays = async (scope: string, range: Range, grain: Series['grain']) => {
    const days = await store.days(storeId, scope, range.from, range.to);
    const series: Series = grain === 'day' ? { grain, points: days } : { grain, points: byMonth(days) };
    return { totals: sum(days), series };
  };
  const read = async (scope: string, range: Range): Promise<RangeCounts> =>
    fromDays(scope, range, daysIn(range) <= DAY_SERIES_MAX_DAYS ? 'day' : 'month');
  const many = async (scopes: readonly string[], range: Range): Promise<Map<string, RangeCounts>> => {
    const days = daysIn(range);
    if (days > DAY_SERIES_MAX_DAYS || days * scopes.length > BATCH_KEYS) {
      return new Map(await Promise.all(scopes.map(async (scope) => [scope, await read(scope, range)] as const)));
    }
    const every = eachDay(range);
    const found = await store.periods(
      storeId,
      scopes.map((scope) => ({ scope, days: every })),
    );
    return new Map(
      scopes.map((scope) => {
        const points = found.get(scope) ?? [];
        return [scope, { totals: sum(points), series: { grain: 'day', points } }] as const;
      }),
    );
  };
  return Object.assign(read, { many });
};
