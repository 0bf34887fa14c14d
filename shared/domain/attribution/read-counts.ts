/**
 * Counters over a range of days, read from as few items as the range allows (a year of stats answers in
 * about the time of a single-item read). Every count is kept twice as it is added: on its day and on its month
 * (`AttributionStore.add`). A range of up to `DAY_SERIES_MAX_DAYS` days is read from its days and answers a per-day
 * series; a longer one is read as the days before its first whole month, its whole months, and the days after its last
 * whole month (at most about 60 days and 12 months, one batch read by key), and answers a per-month series. A range
 * that reaches today reads its last month whole, from its month item: no count is on a day after today, so that item
 * holds exactly the month's days so far (a year to today: 15 items instead of about 42).
 *
 * Scopes kept per day only (`keepsMonths`: the console's activity counters) are read from their days at any range.
 * A store whose month counters are not known to be whole (created before they were kept, until the admin rebuild)
 * is read from its days alone: slower, never wrong.
 */
import { type DayCounts, keepsMonths, type MonthCounts, monthOf } from './model.ts';
import type { AttributionStore } from './ports.ts';

/** Ranges up to this many days answer a per-day series, longer ones a per-month series. */
export const DAY_SERIES_MAX_DAYS = 92;

const DAY_MS = 86_400_000;
const dayMs = (day: string) => Date.parse(`${day}T00:00:00Z`);
const dayAt = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Inclusive days of [from, to]. */
export const daysIn = (range: { readonly from: string; readonly to: string }) =>
  (dayMs(range.to) - dayMs(range.from)) / DAY_MS + 1;

/** The first day of `month` (`YYYY-MM`), and the first day of the month after it. */
const monthStart = (month: string) => `${month}-01`;
const nextMonthStart = (month: string) => {
  const [year, m] = month.split('-').map(Number) as [number, number];
  return dayAt(Date.UTC(year, m, 1));
};

/** Every day of [from, to]. */
const eachDay = ({ from, to }: { readonly from: string; readonly to: string }): string[] => {
  const days: string[] = [];
  for (let ms = dayMs(from); ms <= dayMs(to); ms += DAY_MS) days.push(dayAt(ms));
  return days;
};

/** Every month of [from, to] (`YYYY-MM`). */
const eachMonth = ({ from, to }: { readonly from: string; readonly to: string }): string[] => {
  const months: string[] = [];
  for (let month = from; month <= to; month = monthOf(nextMonthStart(month))) months.push(month);
  return months;
};

export interface RangeParts {
  /** Day ranges outside the whole months (before the first, after the last), in order. */
  readonly days: readonly { readonly from: string; readonly to: string }[];
  /** The whole months within the range (`YYYY-MM`, inclusive), when there is one. */
  readonly months?: { readonly from: string; readonly to: string };
}

/**
 * [from, to] as its whole months and the days around them. Given `today`, a range that reaches it takes its last month
 * as whole: counts are added to their day and their month together and never for a day after today, so the month's
 * item is the sum of its days up to `to`. (A count added a few milliseconds before midnight by a worker whose clock
 * runs ahead is on tomorrow's day and already in the month: read from the month, it is in today's range.)
 */
export const splitRange = (from: string, to: string, today?: string): RangeParts => {
  const firstWhole = from.endsWith('-01') ? monthOf(from) : monthOf(nextMonthStart(monthOf(from)));
  const afterTo = dayAt(dayMs(to) + DAY_MS);
  const lastWhole =
    afterTo.endsWith('-01') || (today !== undefined && to >= today)
      ? monthOf(to)
      : monthOf(dayAt(dayMs(monthStart(monthOf(to))) - DAY_MS));
  if (firstWhole > lastWhole) return { days: [{ from, to }] };
  const head = monthStart(firstWhole) > from ? [{ from, to: dayAt(dayMs(monthStart(firstWhole)) - DAY_MS) }] : [];
  const tailStart = nextMonthStart(lastWhole);
  const tail = tailStart <= to ? [{ from: tailStart, to }] : [];
  return { days: [...head, ...tail], months: { from: firstWhole, to: lastWhole } };
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
  /**
   * Each scope's counters: one batch read by key when their keys fit in one (`BATCH_KEYS`), else one read each. The
   * scopes in `totalsOnly` are wanted for their totals: kept per month, they are read as their whole months and the
   * days around them whatever the range (30 days to today: a few days and a month, not 30 days), and answer a
   * per-month series.
   */
  many(
    scopes: readonly string[],
    range: Range,
    options?: { readonly totalsOnly?: readonly string[] },
  ): Promise<Map<string, RangeCounts>>;
}

/** Keys one batch read takes (DynamoDB's `BatchGetItem`). */
const BATCH_KEYS = 100;

/**
 * A reader of `storeId`'s counters, for one request (whether its months are kept is asked once). `today` (the
 * request's `YYYY-MM-DD`) lets a long range that reaches it read its last month from the month's item (`splitRange`).
 */
export const countsReader = (
  store: Pick<AttributionStore, 'days' | 'periods' | 'monthsKept'>,
  storeId: string,
  today?: string,
): CountsReader => {
  let kept: Promise<boolean> | undefined;
  const fromDays = async (scope: string, range: Range, grain: Series['grain']) => {
    const days = await store.days(storeId, scope, range.from, range.to);
    const series: Series = grain === 'day' ? { grain, points: days } : { grain, points: byMonth(days) };
    return { totals: sum(days), series };
  };
  const read = async (scope: string, range: Range): Promise<RangeCounts> => {
    if (daysIn(range) <= DAY_SERIES_MAX_DAYS) return fromDays(scope, range, 'day');
    const parts = splitRange(range.from, range.to, today);
    const { months } = parts;
    if (!months || !keepsMonths(scope)) return fromDays(scope, range, 'month');
    kept ??= store.monthsKept(storeId);
    // Side by side with the question, so a store whose months are kept waits for one read: the days around the whole
    // months and the months themselves, by key (at most 62 days and 12 months for the longest range).
    const [isKept, found] = await Promise.all([
      kept,
      store
        .periods(storeId, [{ scope, days: parts.days.flatMap(eachDay), months: eachMonth(months) }])
        .then((byScope) => byScope.get(scope) ?? { days: [], months: [] }),
    ]);
    if (!isKept) return fromDays(scope, range, 'month');
    const points = [...byMonth(found.days), ...found.months].sort((a, b) => a.month.localeCompare(b.month));
    return { totals: sum(points), series: { grain: 'month', points } };
  };
  const many: CountsReader['many'] = async (scopes, range, options = {}) => {
    if (scopes.length === 0) return new Map();
    const perScope = async () =>
      new Map(await Promise.all(scopes.map(async (scope) => [scope, await read(scope, range)] as const)));
    if (daysIn(range) > DAY_SERIES_MAX_DAYS) return perScope();
    const every = eachDay(range);
    const parts = splitRange(range.from, range.to, today);
    const { months } = parts;
    const byMonths = new Set(
      months ? (options.totalsOnly ?? []).filter((scope) => scopes.includes(scope) && keepsMonths(scope)) : [],
    );
    // The same lists for every scope of a kind (the flows page asks for each of the store's flows).
    const around = { days: parts.days.flatMap(eachDay), months: months ? eachMonth(months) : [] };
    const asks = scopes.map((scope) =>
      byMonths.has(scope) ? { scope, ...around } : { scope, days: every, months: [] as string[] },
    );
    if (asks.reduce((n, ask) => n + ask.days.length + ask.months.length, 0) > BATCH_KEYS) return perScope();
    if (byMonths.size > 0) kept ??= store.monthsKept(storeId);
    const [isKept, found] = await Promise.all([byMonths.size > 0 ? kept : false, store.periods(storeId, asks)]);
    const answers = new Map<string, RangeCounts>(
      scopes.map((scope) => {
        const { days: points = [], months: monthPoints = [] } = found.get(scope) ?? {};
        if (!byMonths.has(scope)) return [scope, { totals: sum(points), series: { grain: 'day', points } }] as const;
        const monthly = [...byMonth(points), ...monthPoints].sort((a, b) => a.month.localeCompare(b.month));
        return [scope, { totals: sum(monthly), series: { grain: 'month', points: monthly } }] as const;
      }),
    );
    // A store whose months are not known to be whole: those scopes from their days after all (`fromDays`).
    if (!isKept) {
      for (const [scope, counts] of await Promise.all(
        [...byMonths].map(async (scope) => [scope, await fromDays(scope, range, 'month')] as const),
      )) {
        answers.set(scope, counts);
      }
    }
    return answers;
  };
  return Object.assign(read, { many });
};
