/**
 * The one clock the service reads (handlers, use cases and adapters alike): the wall clock as deployed. The local
 * runtime moves it forward with `POST /_local/clock/advance` (`readTimeFrom`), so a simulated week passes for every
 * handler, timer and counter of the process at once.
 */
import type { Clock } from '#shared/domain/clock.ts';
import { onReset } from '#shared/lazy.ts';

let source: () => number = Date.now;

export const systemClock: Clock = { now: () => source() };

/**
 * The local runtime only: every reader of `systemClock` in this process reads `now` from here on, until the process
 * state is reset (`resetProcessState`).
 */
export const readTimeFrom = (now: () => number): void => {
  source = now;
};

onReset(() => {
  source = Date.now;
});
