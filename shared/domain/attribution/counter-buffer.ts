/**
 * Counter additions kept for a queue batch and written once at its end: the runs and SES events of one batch mostly
 * count for the same store, flow, step and day, so ten emails of a batch cost one `ADD` per scope instead of ten
 * (a flow email used to add to three counter items, and each of its SES events to three more).
 *
 * What this changes: a count shows in the stats once the batch that made it ends (seconds), not as it happens. What it
 * does not: counts are still added only on the transitions that happen once (a run created, an email sent, an SES event
 * claimed), so a redelivered message never counts twice. A flush that fails keeps its additions for the next flush of
 * the same warm worker; a worker that dies with additions kept loses them, as a crash between the once-only write and
 * the `ADD` always could (docs/attribution.md, "Known gaps"). A day and its month are separate items, each written
 * alone and kept alone when its write fails, so a retried flush never adds a day (or a month) twice.
 */
import { batchSums } from '#shared/domain/batch-sums.ts';
import { keepsMonths, monthOf } from './model.ts';
import type { AttributionStore } from './ports.ts';

export interface CounterBuffer {
  /** The store with `add` kept in memory; every other method goes straight through. */
  readonly store: AttributionStore;
  /**
   * Writes what was added since the last flush: one write per store, scope and day, and per month. Answers how many
   * writes failed (their additions kept for the next flush).
   */
  flush(): Promise<number>;
}

export const counterBuffer = (
  target: AttributionStore,
  onFlushFailed: (error: unknown, kept: number) => void = () => undefined,
): CounterBuffer => {
  // A day (`YYYY-MM-DD`) or a month (`YYYY-MM`) per key: each item is added alone, so a failed one is kept alone.
  const sums = batchSums<readonly [storeId: string, scope: string, period: string]>(
    ([storeId, scope, period], deltas) => target.addTo(storeId, scope, period, deltas),
  );
  return {
    store: {
      ...target,
      async add(storeId, scopes, day, deltas) {
        for (const scope of scopes) {
          sums.add([storeId, scope, day], deltas);
          if (keepsMonths(scope)) sums.add([storeId, scope, monthOf(day)], deltas);
        }
      },
    },
    async flush() {
      const { failed, error } = await sums.flush();
      if (failed > 0) onFlushFailed(error, failed);
      return failed;
    },
  };
};

/**
 * Flushes `buffer` until nothing is kept, pausing `pausesMs` between tries (then leaving what is still kept for the
 * next flush): for a worker whose next batch may not come soon, such as the counters worker, whose claims are taken.
 */
export const flushPersistently = async (
  buffer: Pick<CounterBuffer, 'flush'>,
  pausesMs: readonly number[],
  pause: (ms: number) => Promise<unknown>,
): Promise<number> => {
  let kept = await buffer.flush();
  for (const ms of pausesMs) {
    if (kept === 0) break;
    await pause(ms);
    kept = await buffer.flush();
  }
  return kept;
};
