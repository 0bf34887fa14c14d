/** Ports of the timers area: what its use cases need from the outside world. Nothing here imports an AWS SDK. */
import type { Timer } from './model.ts';

/** One-time timers (EventBridge Scheduler `at()` schedules): one per name, re-setting it moves it. */
export interface Timers {
  set(timer: Timer): Promise<void>;
}
