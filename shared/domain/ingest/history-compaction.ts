/**
 * The event history's daily compaction (docs/backtest.md "Compaction"): a store's closed UTC day of history, written by
 * the ingest worker as one item per worker batch (a quiet store: an item per event), merged into as few packs as fit
 * (one per MiB of the events' JSON: a few a day for a store of 10,000 events a day), so that a backtest reads a few
 * items a day instead of thousands.
 *
 * For a store and a closed day: the day's items are read in key order (a page at a time); their events, merged in
 * acceptance order and each `sourceId` kept once (the first copy read, as the reader keeps it), are cut into packs by
 * their JSON's length alone and put under the same `PACK#<first acceptedAt>#<hash of the bytes>` keys the worker uses;
 * an item read is deleted once every event it holds is in a pack that was put, unless it is one of those packs.
 *
 * - **The same answer**: the reader keeps each `sourceId` once per day and sorts by acceptance, so the same events in
 *   fewer packs read the same.
 * - **Idempotent**: the packs depend on the day's events alone (their order, their JSON), not on how they were stored,
 *   so compacting a compacted day finds every pack it would write already there (it writes and deletes nothing), and a
 *   day compacted again after a late event rewrites only what changed.
 * - **A crash at any point** loses nothing: an item is deleted only after its events were put in other items, so a
 *   crash between the puts and the deletes leaves copies the reader ignores, and the next run (the timer's retry)
 *   writes the same packs again and deletes what is left.
 * - **Bounded memory**: an item's events become final once no item still to read can hold an earlier event (items are
 *   read in key order, and no event of an item is older than its key's time); final events are packed and put as each
 *   pack fills, and the items they came from deleted, so a run holds about one pack's events and a page of items
 *   whatever the day's size.
 */
import type { Clock } from '#shared/domain/clock.ts';
import type { HistoryCompactionTimerPayload } from '#shared/domain/timers/model.ts';
import type { Timers } from '#shared/domain/timers/ports.ts';
import { RetryLater } from '#shared/errors.ts';
import { type Pack, packedJson, packSerialized, unpackEvents } from './history-pack.ts';
import type { HistoryEvent } from './model.ts';

const DAY_MS = 86_400_000;

/**
 * A merged pack holds events up to this much JSON (characters) before the next one starts: a run holds about this
 * much (as JSON, and again as objects) at once, and the timer worker (512 MB) may run ten compactions of a batch side
 * by side. About 70 KB compressed on the backtest bench's events.
 */
export const COMPACTED_PACK_JSON = 1024 * 1024;

/** Items deleted per call of `remove` at most: the time left is asked between them (a day's partition takes about
 * 1,000 deletes a second). */
const DELETES_AT_ONCE = 1_000;

/** One stored item of a day's history, as the compaction reads it. */
export interface StoredHistoryItem {
  /** The item's name within its day (its sort key). */
  readonly id: string;
  /** No event of the item was accepted before this (its key's time: a pack's first event, an old item's minute). */
  readonly notBefore: number;
  readonly packs: readonly Uint8Array[];
}

export interface StoredHistoryPage {
  readonly items: readonly StoredHistoryItem[];
  readonly next?: unknown;
}

/** The history as the compaction sees it: its items with their names, and what puts and deletes them. */
export interface CompactableHistory {
  /**
   * A page of the store's items of `day` that are not past their retention, in key order (`notBefore` never
   * decreases along the pages); `after` is the previous page's `next`.
   */
  items(storeId: string, day: string, after?: unknown): Promise<StoredHistoryPage>;
  /** The name the pack's item has (the same pack, the same name). */
  idOf(pack: Pack): string;
  /** Keeps a pack as an item of its own until `expiresAt` (epoch seconds), as the worker's packs are kept. */
  put(storeId: string, pack: Pack, expiresAt: number): Promise<void>;
  /** Deletes the day's items of these names. */
  remove(storeId: string, day: string, ids: readonly string[]): Promise<void>;
}

export interface CompactHistoryDeps {
  readonly history: CompactableHistory;
  /** Days the payload is kept (a merged pack expires this long after its last event, as a worker's pack does). */
  readonly keepDays: number;
  readonly clock: Clock;
  /** A merged pack's events' JSON (characters) before the next pack starts (`DayPacker`; tests set less). */
  readonly packJson?: number;
}

export type CompactionOutcome =
  | { readonly skipped: string }
  | {
      /** Items read. */
      readonly read: number;
      /** The day's events (each once). */
      readonly events: number;
      /** Packs put. */
      readonly written: number;
      /** Packs already stored as they would be written (not put again). */
      readonly kept: number;
      /** Items deleted. */
      readonly deleted: number;
    };

const byAcceptance = (a: HistoryEvent, b: HistoryEvent) =>
  a.acceptedAt - b.acceptedAt || (a.sourceId < b.sourceId ? -1 : a.sourceId > b.sourceId ? 1 : 0);

/** A group of a day's events cut for one merged pack (more when it compresses past `MAX_PACK_BYTES`), with their JSON. */
export interface PackGroup {
  readonly events: readonly HistoryEvent[];
  readonly parts: readonly string[];
}

/**
 * Cuts a day's events, given in acceptance order and each once, into the compacted layout's groups: by the length of
 * their JSON alone (a group closes at the event that takes it to `packJson`), so the same events give the same groups
 * however they were stored. The compaction and the backtest bench's seeding both cut with it.
 */
export class DayPacker {
  #events: HistoryEvent[] = [];
  #parts: string[] = [];
  #length = 0;
  readonly #packJson: number;

  constructor(packJson = COMPACTED_PACK_JSON) {
    this.#packJson = packJson;
  }

  /** Adds the next event; answers the group it closes, if it closes one. */
  add(event: HistoryEvent): PackGroup | undefined {
    const json = packedJson(event);
    this.#events.push(event);
    this.#parts.push(json);
    this.#length += json.length + 1;
    return this.#length >= this.#packJson ? this.rest() : undefined;
  }

  /** The open group (the day's last), if it holds any event; the packer is empty after. */
  rest(): PackGroup | undefined {
    if (this.#events.length === 0) return undefined;
    const group = { events: this.#events, parts: this.#parts };
    this.#events = [];
    this.#parts = [];
    this.#length = 0;
    return group;
  }
}

/** A group's packs: one, or more when it compresses past `MAX_PACK_BYTES` (halved until each fits). */
export const packGroup = (group: PackGroup): Promise<Pack[]> => packSerialized(group.events, group.parts);

/**
 * Compacts one store's closed UTC day (`yyyy-mm-dd`). `hasTime` is asked before each page after the first and between
 * deletes of a thousand items: when it answers false the run stops with `RetryLater` (what it put and deleted stands;
 * the retry reads the day again, the packs already written among it).
 */
export const compactHistoryDay = async (
  deps: CompactHistoryDeps,
  storeId: string,
  day: string,
  hasTime: () => boolean = () => true,
): Promise<CompactionOutcome> => {
  if (deps.clock.now() < Date.parse(`${day}T00:00:00Z`) + DAY_MS) return { skipped: 'the day is not over' };
  const outcome = { read: 0, events: 0, written: 0, kept: 0, deleted: 0 };

  /** Events read and not final yet (an item still to read may hold an earlier one), in read order then sorted. */
  let pending: HistoryEvent[] = [];
  /** Items read and not deleted yet, with their last event (in acceptance order). */
  let held: { readonly id: string; readonly last?: HistoryEvent }[] = [];
  /** Final events (each once) not in a pack yet. */
  const packer = new DayPacker(deps.packJson);
  let lastKept: HistoryEvent | undefined;
  /** Every event up to this one (in acceptance order) is in a pack that was put. */
  let putThrough: HistoryEvent | undefined;
  /** Names of the packs this run put or found stored: never deleted. */
  const written = new Set<string>();

  const release = async (all: boolean) => {
    const isDone = (item: (typeof held)[number]) =>
      all || item.last === undefined || (putThrough !== undefined && byAcceptance(item.last, putThrough) <= 0);
    const done = held.filter(isDone);
    if (done.length === 0) return;
    held = held.filter((item) => !isDone(item));
    const ids = done.map((item) => item.id).filter((id) => !written.has(id));
    for (let start = 0; start < ids.length; start += DELETES_AT_ONCE) {
      if (start > 0 && !hasTime()) {
        throw new RetryLater(`history compaction of ${storeId} ${day} stopped after ${outcome.deleted} deletes`);
      }
      const slice = ids.slice(start, start + DELETES_AT_ONCE);
      await deps.history.remove(storeId, day, slice);
      outcome.deleted += slice.length;
    }
  };

  const cut = async (group: PackGroup) => {
    const stored = new Set(held.map((item) => item.id));
    await Promise.all(
      (await packGroup(group)).map(async (pack) => {
        const id = deps.history.idOf(pack);
        written.add(id);
        // The same name is the same bytes: read in this run, so already there as it would be written.
        if (stored.has(id)) {
          outcome.kept++;
          return;
        }
        await deps.history.put(storeId, pack, Math.ceil(pack.lastAt / 1000) + deps.keepDays * 86_400);
        outcome.written++;
      }),
    );
    putThrough = group.events[group.events.length - 1];
    await release(false);
  };

  /** Moves the events accepted before `watermark` (none still to read can be) to the packs being filled. */
  let watermark = Number.NEGATIVE_INFINITY;
  const settle = async (upTo: number) => {
    if (upTo <= watermark && upTo !== Number.POSITIVE_INFINITY) return;
    watermark = upTo;
    // Stable: copies of one event keep their read order, and the first is kept (as the reader keeps it).
    pending.sort(byAcceptance);
    let split = 0;
    while (split < pending.length && (pending[split] as HistoryEvent).acceptedAt < upTo) split++;
    const final = pending.slice(0, split);
    pending = pending.slice(split);
    for (const event of final) {
      if (lastKept && lastKept.acceptedAt === event.acceptedAt && lastKept.sourceId === event.sourceId) continue;
      lastKept = event;
      outcome.events++;
      const group = packer.add(event);
      if (group) await cut(group);
    }
  };

  let after: unknown;
  let first = true;
  do {
    if (!first && !hasTime()) {
      throw new RetryLater(`history compaction of ${storeId} ${day} stopped after ${outcome.read} items`);
    }
    first = false;
    const page = await deps.history.items(storeId, day, after);
    after = page.next;
    for (const item of page.items) {
      // Items after this one start at its time or later: what is older than it is final.
      await settle(item.notBefore);
      let last: HistoryEvent | undefined;
      for (const bytes of item.packs) {
        for (const event of await unpackEvents(storeId, bytes)) {
          pending.push(event);
          if (!last || byAcceptance(event, last) > 0) last = event;
        }
      }
      held.push(last ? { id: item.id, last } : { id: item.id });
      outcome.read++;
    }
  } while (after !== undefined);
  await settle(Number.POSITIVE_INFINITY);
  const last = packer.rest();
  if (last) await cut(last);
  await release(true);
  return outcome;
};

/** An hour after the day ends, then spread over three hours by store, so a deployment's stores do not all run at once. */
const COMPACTION_DELAY_MS = 3_600_000;
const COMPACTION_SPREAD_MINUTES = 180;

/** A store's spread (FNV-1a of its id): the same store, the same minute. */
const spreadMinutes = (storeId: string) => {
  let hash = 0x811c9dc5;
  for (let i = 0; i < storeId.length; i++) hash = Math.imul(hash ^ storeId.charCodeAt(i), 0x01000193) >>> 0;
  return hash % COMPACTION_SPREAD_MINUTES;
};

/** When a store's day is compacted (epoch ms). */
export const compactionAt = (storeId: string, day: string): number =>
  Date.parse(`${day}T00:00:00Z`) + DAY_MS + COMPACTION_DELAY_MS + spreadMinutes(storeId) * 60_000;

/** The compaction timer's name: one per store and day, so every instance that writes the day sets the same one. */
export const compactionTimerName = (storeId: string, day: string): string =>
  `hist-${storeId}-${day.replaceAll('-', '')}`;

/** Days remembered per instance, so an instance sets a store's day's timer once, not at every batch. */
const REMEMBERED_DAYS = 10_000;

export interface CompactionScheduleDeps {
  readonly timers: Timers;
  readonly clock: Clock;
}

/** What the ingest worker calls when it has written history of a store's day (`HistoryBuffer.flush`). */
export interface HistoryWritten {
  written(storeId: string, day: string): Promise<void>;
}

/**
 * Sets the compaction timer of each store's day the worker writes history for (once per instance and day): an hour
 * after the day ends and up to three hours more (`compactionAt`); a day written after its compaction's time (a late
 * event) gets one a minute later, which compacts it again.
 */
export const compactionSchedule = (deps: CompactionScheduleDeps): HistoryWritten => {
  /** Timers this instance set, and when each fires: a day written again after its timer fired gets another. */
  const remembered = new Map<string, number>();
  return {
    async written(storeId, day) {
      const name = compactionTimerName(storeId, day);
      const now = deps.clock.now();
      if ((remembered.get(name) ?? 0) > now) return;
      const payload: HistoryCompactionTimerPayload = { v: 1, kind: 'history', storeId, day };
      const at = Math.max(compactionAt(storeId, day), now + 60_000);
      await deps.timers.set({ name, at, payload });
      if (remembered.size >= REMEMBERED_DAYS) remembered.clear();
      remembered.set(name, at);
    },
  };
};
