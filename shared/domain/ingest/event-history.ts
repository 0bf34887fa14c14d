/**
 * The event history (docs/backtest.md): every applied event's payload, kept for a retention (default 90 days,
 * `EVENT_HISTORY_DAYS`) so that a flow backtest can replay a period of the store's events. The de-duplication record
 * (`EventLog`) keeps no payload and never expires, so the history is kept apart, with a TTL, written by the ingest
 * worker once the events have applied (a failed event is not history): the events a worker batch applied, per store and
 * UTC day, packed and compressed (`history-pack.ts`) and written as an item of their own in that store's day partition.
 * A new item per pack, never a growing one: DynamoDB charges a write by the whole item's size, so adding a pack to an
 * item holding a minute of packs cost the minute's size each time. Items written before (a minute's set of
 * packs) are read as they are.
 *
 * Exactly once, as the replay sees it: the same events pack to the same bytes, and a pack's item is keyed by its bytes,
 * so a batch delivered again writes the same item again; an event applied again in another batch (its first handling
 * failed after it applied) lands in another pack of the same day, and the read keeps each `sourceId` once.
 */

import type { HistoryWritten } from './history-compaction.ts';
import { type Pack, packEvents, unpackEvents } from './history-pack.ts';
import type { HistoryEvent, IngestMessage } from './model.ts';

export type { HistoryEvent };

const DAY_MS = 86_400_000;

/** The UTC day (`yyyy-mm-dd`) an acceptance time belongs to: the history's partition. */
export const historyDay = (at: number): string => new Date(at).toISOString().slice(0, 10);

/** The UTC days that a range `[from, to)` (epoch ms) touches, in order. */
export const historyDays = (from: number, to: number): string[] => {
  const days: string[] = [];
  for (let day = Math.floor(from / DAY_MS) * DAY_MS; day < to; day += DAY_MS) days.push(historyDay(day));
  return days;
};

/** A page of one day's packs (compressed) and, when more of that day follows, where to continue. */
export interface HistoryPage {
  readonly packs: readonly Uint8Array[];
  readonly next?: unknown;
}

export interface EventHistory {
  /**
   * Keeps a pack of the store's events of one UTC day (the day of `pack.firstAt`) until `expiresAt` (epoch seconds), as
   * an item of its own. Idempotent: the same pack is the same item.
   */
  put(storeId: string, pack: Pack, expiresAt: number): Promise<void>;
  /** One page of the store's packs of `day`; `after` is the previous page's `next`. Packs past retention are not answered. */
  page(storeId: string, day: string, after?: unknown): Promise<HistoryPage>;
}

export interface RecordHistoryDeps {
  readonly history: Pick<EventHistory, 'put'>;
  /** Days the payload is kept. */
  readonly keepDays: number;
  /** Told each store and day written, once its packs are put: the day's compaction timer (`history-compaction.ts`). */
  readonly written?: HistoryWritten;
}

/**
 * The applied events of one worker batch, kept in memory until the batch ends (`flush`): then one write per store and
 * UTC day the batch touched (more when a pack would pass `MAX_PACK_BYTES`).
 */
export class HistoryBuffer {
  #events: HistoryEvent[] = [];

  add(message: IngestMessage): void {
    const { v: _version, ...event } = message;
    this.#events.push(event);
  }

  get size(): number {
    return this.#events.length;
  }

  /** Writes what was added since the last flush, per store and day, in acceptance order; the buffer is emptied. */
  async flush(deps: RecordHistoryDeps): Promise<number> {
    const events = this.#events;
    this.#events = [];
    const groups = groupByStoreAndDay(events);
    // Every group packed first (side by side, off the event loop), then every pack put in the same turn: a writer
    // that gathers a turn's puts (the worker's, `coalesced.ts`) makes them one call.
    const packed = await Promise.all(
      groups.map(async ({ storeId, events: group }) => {
        group.sort(byAcceptance);
        return { storeId, packs: await packEvents(group) };
      }),
    );
    const puts = packed.flatMap(({ storeId, packs }) =>
      packs.map((pack) => deps.history.put(storeId, pack, Math.ceil(pack.lastAt / 1000) + deps.keepDays * 86_400)),
    );
    await Promise.all(puts);
    const { written } = deps;
    if (written) await Promise.all(groups.map(({ storeId, day }) => written.written(storeId, day)));
    return puts.length;
  }
}

/** A store's events of one UTC day, in the order they were added. */
interface StoreDayGroup {
  readonly storeId: string;
  readonly day: string;
  readonly events: HistoryEvent[];
}

/** The events grouped by store and UTC day (of their acceptance), each group in the order they came. */
const groupByStoreAndDay = (events: readonly HistoryEvent[]): StoreDayGroup[] => {
  const byStore = new Map<string, Map<string, StoreDayGroup>>();
  const groups: StoreDayGroup[] = [];
  for (const event of events) {
    const day = historyDay(event.acceptedAt);
    let days = byStore.get(event.storeId);
    if (!days) {
      days = new Map();
      byStore.set(event.storeId, days);
    }
    const group = days.get(day);
    if (group) group.events.push(event);
    else {
      const created = { storeId: event.storeId, day, events: [event] };
      days.set(day, created);
      groups.push(created);
    }
  }
  return groups;
};

const byAcceptance = (a: HistoryEvent, b: HistoryEvent) =>
  a.acceptedAt - b.acceptedAt || (a.sourceId < b.sourceId ? -1 : a.sourceId > b.sourceId ? 1 : 0);

/** One day's events within `[from, to)`: every pack read and unpacked, each `sourceId` once, in acceptance order. */
const readDay = async (
  history: Pick<EventHistory, 'page'>,
  storeId: string,
  day: string,
  from: number,
  to: number,
): Promise<HistoryEvent[]> => {
  const unpacking: Promise<HistoryEvent[]>[] = [];
  let after: unknown;
  do {
    const page = await history.page(storeId, day, after);
    for (const bytes of page.packs) unpacking.push(unpackEvents(storeId, bytes));
    after = page.next;
  } while (after !== undefined);
  const seen = new Set<string>();
  const events: HistoryEvent[] = [];
  for (const pack of await Promise.all(unpacking)) {
    for (const event of pack) {
      if (event.acceptedAt < from || event.acceptedAt >= to || seen.has(event.sourceId)) continue;
      seen.add(event.sourceId);
      events.push(event);
    }
  }
  return events.sort(byAcceptance);
};

/** Days read ahead of the one being replayed (their reads and decompression overlap the replay). */
export const HISTORY_DAYS_AHEAD = 4;

/**
 * The store's history within `[from, to)`, a day at a time, in acceptance order. Up to `ahead` days after the one
 * handed over are being read and unpacked meanwhile.
 */
export async function* readHistory(
  history: Pick<EventHistory, 'page'>,
  storeId: string,
  from: number,
  to: number,
  ahead = HISTORY_DAYS_AHEAD,
): AsyncGenerator<readonly HistoryEvent[]> {
  const days = historyDays(from, to);
  const reads: (Promise<HistoryEvent[]> | undefined)[] = [];
  const start = (index: number) => {
    if (index >= days.length || reads[index] !== undefined) return;
    const read = readDay(history, storeId, days[index] as string, from, to);
    read.catch(() => undefined);
    reads[index] = read;
  };
  for (let index = 0; index < days.length; index++) {
    for (let next = index; next <= index + ahead; next++) start(next);
    const events = await (reads[index] as Promise<HistoryEvent[]>);
    reads[index] = undefined;
    if (events.length > 0) yield events;
  }
}
