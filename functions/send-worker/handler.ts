/**
 * Consumes the `sends` queue: fans a queued batch out into its chunks, and sends each chunk as one `SendBulkEmail`,
 * paced to the account's send rate (see `shared/domain/email/send-chunk.ts`). A chunk that could not be finished for
 * a passing reason (throttling, an SES or table hiccup) is held back, 10, 20, 40 … s, and retried; on the queue's last
 * attempt what is still unsent is marked failed on its recipients.
 */

import { holdBack } from '#shared/adapters/sqs/visibility.ts';
import { QUEUES } from '#shared/catalog/queues.ts';
import { required } from '#shared/config.ts';
import { handleSendMessage, parseSendMessage, retryDelaySeconds } from '#shared/domain/email/send-chunk.ts';
import { PermanentError } from '#shared/errors.ts';
import { logger } from '#shared/observability.ts';
import { queueWorker } from '#shared/queue/batch.ts';
import { afterSendBatch, sendWorkerDeps } from '#shared/wiring/sending.ts';

export const handler = queueWorker({
  queue: QUEUES.sends,
  parse: parseSendMessage,
  handle: async (message, { record, attempt, lastAttempt }) => {
    let outcome: Awaited<ReturnType<typeof handleSendMessage>>;
    try {
      outcome = await handleSendMessage(sendWorkerDeps(), message, {
        receiveCount: attempt,
        maxReceiveCount: QUEUES.sends.maxReceiveCount,
      });
    } catch (error) {
      if (error instanceof PermanentError || lastAttempt) throw error;
      logger.warn('Send attempt failed; retrying later', { ...message, attempt, error });
      return holdBack(required('sendQueueUrl'), record, retryDelaySeconds(attempt));
    }
    logger.info('Send message handled', { ...message, attempt, ...outcome });
    if ('retryInSeconds' in outcome) await holdBack(required('sendQueueUrl'), record, outcome.retryInSeconds);
  },
  // The completed chunks' sent emails, one counters message per batch.
  afterBatch: afterSendBatch,
});
