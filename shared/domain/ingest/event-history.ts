/**
 * The event history (docs/backtest.md): every applied event's payload, kept for a retention (default 90 days,
 * `EVENT_HISTORY_DAYS`) so that a flow backtest can replay a period of the store's events. The de-duplication record
 * (`EventLog`) keeps no payload and never expires, so the history is an item of its own, with a TTL: one write per
 * applied event, by the ingest worker once the event has applied (a failed event is not history).
 */
import type { IngestMessage } from './model.ts';

/** One applied event as the history keeps it: the ingest message, as the worker applied it. */
export type HistoryEvent = Omit<IngestMessage, 'v'>;

const DAY_MS = 86_400_000;

/** The UTC day (`yyyy-mm-dd`) an acceptance time belongs to: the history's partition. */
export const historyDay = (at: number): string => new Date(at).toISOString().slice(0, 10);

/** The UTC days that a range `[from, to)` (epoch ms) touches, in order. */
export const historyDays = (from: number, to: number): string[] => {
  const days: string[] = [];
  for (let day = Math.floor(from / DAY_MS) * DAY_MS; day < to; day += DAY_MS) days.push(historyDay(day));
  return days;
};

/** A page of one day's history and, when more of that day follows, where to continue. */
export interface HistoryPage {
  readonly items: readonly HistoryEvent[];
  readonly next?: unknown;
}

export interface EventHistory {
  /**
   * Keeps the event's payload until `expiresAt` (epoch seconds). Idempotent: the item's key is the store, the day and
   * the acceptance time with the `source_id`, so a redelivered message writes the same item again.
   */
  append(event: HistoryEvent, expiresAt: number): Promise<void>;
  /**
   * One page of the store's history of `day`, accepted within `[from, to)`, in acceptance order; `after` is the
   * previous page's `next`. Items past their retention are not answered (TTL removes them up to days late).
   */
  page(storeId: string, day: string, from: number, to: number, after?: unknown): Promise<HistoryPage>;
}

export interface RecordHistoryDeps {
  readonly history: Pick<EventHistory, 'append'>;
  /** Days the payload is kept. */
  readonly keepDays: number;
}

/** Keeps an applied event in the store's history (one write). */
export const recordHistory = (deps: RecordHistoryDeps, message: IngestMessage): Promise<void> => {
  const { v: _version, ...event } = message;
  return deps.history.append(event, Math.ceil(message.acceptedAt / 1000) + deps.keepDays * 86_400);
};

/**
 * The store's history within `[from, to)`, page by page across its days, in acceptance order. The next page is asked
 * for before this one is handed over, so reading overlaps the caller's work on the page in hand.
 */
export async function* readHistory(
  history: Pick<EventHistory, 'page'>,
  storeId: string,
  from: number,
  to: number,
): AsyncGenerator<readonly HistoryEvent[]> {
  const days = historyDays(from, to);
  const read = (index: number, after?: unknown) => {
    const page = history.page(storeId, days[index] as string, from, to, after).then((p) => ({ index, page: p }));
    page.catch(() => undefined);
    return page;
  };
  let pending: ReturnType<typeof read> | undefined = days.length > 0 ? read(0) : undefined;
  while (pending) {
    const { index, page } = await pending;
    pending = page.next !== undefined ? read(index, page.next) : index + 1 < days.length ? read(index + 1) : undefined;
    if (page.items.length > 0) yield page.items;
  }
}
