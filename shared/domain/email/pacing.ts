/**
 * Sharing the account's SES rate between stores (issue 13). One SES account sends for every store, at about 14
 * messages a second on a new account, and one store could queue 5 × 2,000 recipients a second. So every email — bulk
 * and flow — takes a slot from one pacer, under three rules:
 * - **transactional first**: marketing mail (bulk sends, flows that need consent) may use the account rate minus a
 *   reserve (`TRANSACTIONAL_RESERVE_SHARE`); transactional flow mail (`consent: "transactional"`: order messages,
 *   back-in-stock notices) may use all of it, so a flood of marketing never delays an order confirmation by more than
 *   the pacer's second;
 * - **a fair share per store**: one store takes at most `STORE_SHARE` of the account rate in any second, so another
 *   store's mail always finds room;
 * - **a daily cap per store** on marketing mail (`STORE_DAILY_SEND_CAP`, set by the operator), past which bulk sends
 *   are refused (429) and marketing flow emails are skipped with the reason `daily_send_cap`.
 */

export type SendClass = 'transactional' | 'marketing';

/** Who a slot is for: the store whose share it counts against, and its class. */
export interface SlotOwner {
  readonly storeId: string;
  readonly sendClass: SendClass;
}

/** The part of the account rate kept for transactional mail (at least one message a second). */
export const TRANSACTIONAL_RESERVE_SHARE = 0.2;
/** The most of the account rate one store takes in a second (at least one message). */
export const STORE_SHARE = 0.5;

/** The per-second limits a slot of `owner`'s class counts against, for an account rate of `rate`. */
export const slotLimits = (rate: number, sendClass: SendClass) => {
  const account = Math.max(1, rate);
  const reserve = Math.max(1, Math.ceil(account * TRANSACTIONAL_RESERVE_SHARE));
  return {
    account: sendClass === 'transactional' ? account : Math.max(1, account - reserve),
    store: Math.max(1, Math.floor(account * STORE_SHARE)),
  };
};

/** The UTC day of `epochMs`, `yyyymmdd`: the daily cap's window. */
export const sendDay = (epochMs: number): string => new Date(epochMs).toISOString().slice(0, 10).replaceAll('-', '');

/** Seconds until the next UTC day starts (the daily cap's `Retry-After`). */
export const secondsToNextDay = (epochMs: number): number => {
  const next = new Date(epochMs);
  next.setUTCHours(24, 0, 0, 0);
  return Math.max(1, Math.ceil((next.getTime() - epochMs) / 1000));
};
