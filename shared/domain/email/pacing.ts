/**
 * Sharing the account's SES rate between stores. One SES account sends for every store, at about 14
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

/** The longest delay a queued message can carry (SQS's 15 minutes). */
const MAX_QUEUE_DELAY_SECONDS = 900;

/**
 * When each chunk of a bulk batch should be queued: spread over the time the store's marketing share of the account
 * rate needs to send the chunks before it, instead of all at once. Queued together, a 2,000-recipient
 * batch's 40 chunks all asked the pacer for slots in the same second, most were re-queued, and the burst of messages
 * and pacer writes slowed every other store's mail. Chunks due after the queue's longest delay go at that delay (the
 * pacer defers them again then). `sizes[i]` is chunk i's recipient count; the answer groups chunk numbers by delay,
 * earliest first.
 */
export const chunkFanOut = (
  sizes: readonly number[],
  rate: number,
): { readonly delaySeconds: number; readonly chunks: number[] }[] => {
  const limits = slotLimits(rate, 'marketing');
  const perSecond = Math.min(limits.account, limits.store);
  const groups: { delaySeconds: number; chunks: number[] }[] = [];
  let before = 0;
  sizes.forEach((size, chunk) => {
    const delaySeconds = Math.min(MAX_QUEUE_DELAY_SECONDS, Math.floor(before / perSecond));
    const last = groups.at(-1);
    if (last?.delaySeconds === delaySeconds) last.chunks.push(chunk);
    else groups.push({ delaySeconds, chunks: [chunk] });
    before += size;
  });
  return groups;
};

/** The UTC day of `epochMs`, `yyyymmdd`: the daily cap's window. */
export const sendDay = (epochMs: number): string => new Date(epochMs).toISOString().slice(0, 10).replaceAll('-', '');

/** Seconds until the next UTC day starts (the daily cap's `Retry-After`). */
export const secondsToNextDay = (epochMs: number): number => {
  const next = new Date(epochMs);
  next.setUTCHours(24, 0, 0, 0);
  return Math.max(1, Math.ceil((next.getTime() - epochMs) / 1000));
};
