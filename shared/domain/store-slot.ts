/**
 * One thing at a time per store, for a while: a slot a request claims for `seconds` (an import's start, a synchronous
 * backtest), or learns when it frees up. A claim that is never released frees itself when its time is up, so a
 * function that dies holding one blocks its store for at most that long.
 */
export interface StoreSlot {
  /** A granted claim carries its own id, the token `release` takes. */
  claim(
    storeId: string,
    seconds: number,
  ): Promise<{ claimed: true; claimId: string } | { claimed: false; retryAfterSeconds: number }>;
  /** Gives back a claim: frees the slot if it is still that claim's (a later claim stays). */
  release(storeId: string, claimId: string): Promise<void>;
}
