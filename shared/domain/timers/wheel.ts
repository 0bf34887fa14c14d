/**
 * The timer wheel: a flow run's wait is kept in the table, in its store's bucket for the due minute, and the
 * Scheduler holds one schedule per store and due minute (a tick) that releases the whole bucket. The number of live
 * schedules then grows with the minutes a store has waits due in, never with the number of waiting runs: fifty flows
 * starting with a 90-day wait, entered by ten customers in one minute, keep one schedule, not five hundred.
 *
 * A wait ends at most one minute late (its due minute is rounded up), which flows measured in hours and days do not
 * notice. Short waits (under `WHEEL_MIN_WAIT_MS`) and the cart and checkout timers keep their own schedule: the cart's
 * hour is exact to the second (spec "Cart lifecycle"), a cart has one timer whatever its writes, and a bucket must be
 * written well before its tick fires.
 */
import type { Clock } from '#shared/domain/clock.ts';
import type { FlowQueue } from '#shared/domain/flows/ports.ts';
import { RetryLater } from '#shared/errors.ts';
import type { CampaignTimerPayload, SegmentTimerPayload, Timer, WheelPayload, WheelTickPayload } from './model.ts';
import type { TimerBuckets, Timers } from './ports.ts';

export const WHEEL_MINUTE_MS = 60_000;
/** Waits at least this long go through the wheel: their bucket is written minutes before its tick can fire. */
export const WHEEL_MIN_WAIT_MS = 2 * WHEEL_MINUTE_MS;

/** The wheel minute a timer due at `at` is released in: the next whole minute (or `at` itself when whole). */
export const dueMinute = (at: number): number => Math.ceil(at / WHEEL_MINUTE_MS) * WHEEL_MINUTE_MS;

/** The tick schedule of a store's minute: deterministic, so every instance sets the same one. */
export const tickName = (storeId: string, minute: number): string => `tick-${storeId}-${minute / WHEEL_MINUTE_MS}`;

/** A store keeps its cap of waiting runs (`LIMITS.waitingRunsPerStore`): the wait is not kept, its run exits. */
export class WaitingRunsCapReached extends Error {
  readonly cap: number;

  constructor(cap: number) {
    super(`The store keeps ${cap} waiting flow runs, its limit`);
    this.name = 'WaitingRunsCapReached';
    this.cap = cap;
  }
}

export interface WheelDeps {
  readonly buckets: Pick<TimerBuckets, 'add'>;
  /** Waits a store may keep at once (`LIMITS.waitingRunsPerStore`). */
  readonly waitingRunsCap: number;
  /** One-time schedules (the Scheduler): the ticks, and the timers that keep their own schedule. */
  readonly schedules: Timers;
  readonly clock: Clock;
}

/** Ticks remembered per instance, so a busy minute costs one schedule call per instance, not one per wait. */
const REMEMBERED_TICKS = 10_000;

const onTheWheel = (timer: Timer): timer is Timer & { readonly payload: WheelPayload } =>
  timer.payload.kind === 'flow' || timer.payload.kind === 'segment' || timer.payload.kind === 'campaign';

/**
 * `Timers` through the wheel: flow waits, segment re-evaluations and due campaigns of two minutes or more into their bucket,
 * everything else as is. Only flow waits count against the store's cap of waiting runs.
 */
export const wheelTimers = (deps: WheelDeps): Timers => {
  const ticked = new Set<string>();
  return {
    async set(timer) {
      if (!onTheWheel(timer) || timer.at - deps.clock.now() < WHEEL_MIN_WAIT_MS) return deps.schedules.set(timer);
      const minute = dueMinute(timer.at);
      const cap = timer.payload.kind === 'flow' ? deps.waitingRunsCap : undefined;
      if (!(await deps.buckets.add(minute, timer, cap))) {
        throw new WaitingRunsCapReached(deps.waitingRunsCap);
      }
      const { storeId } = timer.payload;
      const name = tickName(storeId, minute);
      if (ticked.has(name)) return;
      const payload: WheelTickPayload = { v: 1, kind: 'tick', storeId, minute };
      await deps.schedules.set({ name, at: minute, payload });
      if (ticked.size >= REMEMBERED_TICKS) ticked.clear();
      ticked.add(name);
    },
  };
};

export interface ReleaseDeps {
  readonly buckets: Pick<TimerBuckets, 'due' | 'remove'>;
  readonly flowQueue: Pick<FlowQueue, 'resume'>;
  /** Where a segment re-evaluation goes (the segments queue); without it, such entries are dropped. */
  readonly segmentRechecks?: { recheck(timer: SegmentTimerPayload): Promise<void> };
  /** Where a due campaign goes (the campaigns queue); without it, such entries are dropped. */
  readonly campaignStarts?: { start(timer: CampaignTimerPayload): Promise<void> };
}

/**
 * A tick fired: every wait of the store's minute goes to the flows queue, where the flow worker resumes its run, a page
 * at a time, each page removed once its resumes are queued. `hasTime` is asked before each page: when the invocation
 * runs short the tick is retried (`RetryLater`) and goes on with what is left; a page resumed twice (a crash between
 * the resumes and the removal) resumes runs that the engine finds no longer at that wait, which changes nothing.
 */
export const releaseTick = async (
  deps: ReleaseDeps,
  tick: WheelTickPayload,
  hasTime: () => boolean = () => true,
): Promise<number> => {
  let released = 0;
  for (;;) {
    const page = await deps.buckets.due(tick.storeId, tick.minute);
    if (page.items.length === 0) return released;
    if (released > 0 && !hasTime()) throw new RetryLater(`tick released ${released} waits; the rest on the retry`);
    await Promise.all(
      page.items.map(({ payload }) =>
        payload.kind === 'flow'
          ? deps.flowQueue.resume(payload.storeId, payload.runId, payload.step)
          : payload.kind === 'campaign'
            ? deps.campaignStarts?.start(payload)
            : deps.segmentRechecks?.recheck(payload),
      ),
    );
    await deps.buckets.remove(
      tick.storeId,
      tick.minute,
      page.items.map((item) => item.name),
      page.items.filter((item) => item.payload.kind === 'flow').length,
    );
    released += page.items.length;
  }
};
