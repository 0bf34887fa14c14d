/**
 * Writes that record an email the mail engine already accepted (the sent-message record, the run's `emailed` event,
 * a chunk's recipient states). If one of them fails and the claim on the send is given back, the retry sends the email
 * again: so they are retried here first (they are idempotent), with a short backoff, before the caller gives up. What
 * remains is a crash, or a table failing for the whole backoff, between the send and the record (docs/sending.md).
 */

/** Attempts and the first pause: 100, 200, 400, 800 ms between five attempts (1.5 s in all). */
export const AFTER_SEND_RETRY = { attempts: 5, firstPauseMs: 100 } as const;

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Runs `write` until it succeeds or the attempts are spent (then its last error is thrown). */
export const persistAfterSend = async <T>(
  write: () => Promise<T>,
  options: { readonly sleep?: (ms: number) => Promise<void>; readonly onRetry?: (error: unknown) => void } = {},
): Promise<T> => {
  const sleep = options.sleep ?? pause;
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (attempt >= AFTER_SEND_RETRY.attempts) throw error;
      options.onRetry?.(error);
      await sleep(AFTER_SEND_RETRY.firstPauseMs * 2 ** (attempt - 1));
    }
  }
};
