/**
 * Consumes the webhook delivery queue: one attempt per message. A failed attempt holds the message back for the next
 * retry (5, 10, 20, 40, 80 s by default) and reports it failed; after the last one the queue's redrive moves it to the
 * DLQ, where it stays inspectable, and the delivery is listed as failed (re-sendable through the API).
 */

import { holdBack } from '#shared/adapters/sqs/visibility.ts';
import { QUEUES } from '#shared/catalog/queues.ts';
import { systemClock } from '#shared/clock.ts';
import { required } from '#shared/config.ts';
import { countDeliveryAttempt } from '#shared/domain/console/activity.ts';
import { deliver } from '#shared/domain/webhooks/deliver.ts';
import { parseDeliveryMessage } from '#shared/domain/webhooks/delivery-message.ts';
import { BUSINESS_METRICS, logger, metrics } from '#shared/observability.ts';
import { queueWorker } from '#shared/queue/batch.ts';
import { attemptCounters, deliverDeps, flushAttemptCounters } from '#shared/wiring/webhooks.ts';

export const handler = queueWorker({
  queue: QUEUES.webhooks,
  parse: parseDeliveryMessage,
  handle: async (message, { record, attempt }) => {
    const outcome = await deliver(deliverDeps(), message, attempt);
    logger.info('Webhook delivery attempt', { ...message, attempt, ...outcome });
    const url = required('webhookQueueUrl');
    // A copy of the message that came before its retry was due made no attempt: it waits for the due time.
    if ('waitSeconds' in outcome) return holdBack(url, record, outcome.waitSeconds);
    // Skipped and cancelled deliveries made no attempt; a retry or the last failure did, and failed.
    const result =
      'retryInSeconds' in outcome
        ? 'retried'
        : outcome.done === 'delivered' || outcome.done === 'failed'
          ? outcome.done
          : undefined;
    if (!result) return;
    metrics.count(BUSINESS_METRICS.webhookAttempts);
    await countDeliveryAttempt(attemptCounters(), message.storeId, result, systemClock.now());
    if (result !== 'delivered') metrics.count(BUSINESS_METRICS.webhookFailures);
    if (result === 'failed') metrics.count(BUSINESS_METRICS.webhookExhausted);
    if ('retryInSeconds' in outcome) await holdBack(url, record, outcome.retryInSeconds);
    // After the last attempt, make it visible at once so the redrive moves it to the DLQ now.
    else if (result === 'failed') await holdBack(url, record, 0);
  },
  // The batch's attempt counts (the console's overview), one write per store and day.
  afterBatch: flushAttemptCounters,
});
