/** Ports of the timers area: what its use cases need from the outside world. Nothing here imports an AWS SDK. */
import type { Timer, WheelPayload } from './model.ts';

/** One-time timers (EventBridge Scheduler `at()` schedules): one per name, re-setting it moves it. */
export interface Timers {
  set(timer: Timer): Promise<void>;
}

/** A page of the flow waits (and segment re-evaluations) kept for one store's due minute, each keyed by its name. */
export interface DuePage {
  readonly items: readonly { readonly name: string; readonly payload: WheelPayload }[];
}

/**
 * The timer wheel's buckets: flow waits kept in the table by store and due minute, so the Scheduler holds one schedule
 * per store and minute instead of one per waiting run.
 */
export interface TimerBuckets {
  /**
   * Keeps the wait in its store's bucket for `minute`, counted among the store's waits if it is new, unless the store
   * already keeps `cap` waits: then nothing is kept and the answer is false. The same timer name again overwrites its
   * entry without counting it twice. Without a `cap` (segment re-evaluations, which are not waiting runs) the entry is
   * kept and not counted.
   */
  add(minute: number, timer: Timer & { readonly payload: WheelPayload }, cap?: number): Promise<boolean>;
  /** The first waits still in one store's bucket (a consistent read of at most one page). */
  due(storeId: string, minute: number): Promise<DuePage>;
  /**
   * Removes released entries from the bucket (and `counted` of them, the flow waits, from the store's count), so a
   * release that stops part-way goes on where it stopped.
   */
  remove(storeId: string, minute: number, names: readonly string[], counted: number): Promise<void>;
}
