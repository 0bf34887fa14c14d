/**
 * A store's bulk-sending budget: recipients accepted per second, kept as a GCRA limit. Accepting a
 * 2,000-recipient send reads 2,000 suppressions and writes 2,000 recipient records, so one store at the spec's five
 * sends a second would ask the shared table for some 20,000 item operations a second — five times what a new on-demand
 * table serves at once, and far more than the SES account can send anyway. The budget (the operator setting
 * `storeBulkRecipientsPerSecond`) refills at its rate and holds a burst of five seconds' worth, at least one full send;
 * a send over it is refused whole (429 with `Retry-After`), before anything is read or written.
 */
import type { Clock } from '#shared/domain/clock.ts';
import { rateLimited } from '#shared/errors.ts';

/** Where a store's reservations are kept (atomically, across every instance). */
export interface RateBudget {
  /**
   * Adds `costMs` to the store's reservations if they then end within `burstMs` of `now`: `undefined` when taken, else
   * the time (epoch ms) from which it would fit.
   */
  take(storeId: string, costMs: number, burstMs: number, now: number): Promise<number | undefined>;
}

/** Seconds of the rate a store may send at once. */
export const BURST_SECONDS = 5;
/** The most recipients of one send (spec): the burst always holds one. */
const SEND_MAX = 2000;

/** Takes `recipients` from the store's budget of `perSecond`, or refuses the send (429 naming when to retry). */
export const takeRecipients = async (
  budget: RateBudget,
  clock: Clock,
  perSecond: number,
  storeId: string,
  recipients: number,
): Promise<void> => {
  const rate = Math.max(1, perSecond);
  const costMs = (Math.max(1, recipients) * 1000) / rate;
  const burstMs = Math.max(BURST_SECONDS * 1000, (SEND_MAX * 1000) / rate);
  const now = clock.now();
  const fitsAt = await budget.take(storeId, costMs, burstMs, now);
  if (fitsAt === undefined) return;
  throw rateLimited(
    Math.max(1, Math.ceil((fitsAt - now) / 1000)),
    `The store's bulk sending budget of ${rate} recipients a second is used up; retry later`,
  );
};
