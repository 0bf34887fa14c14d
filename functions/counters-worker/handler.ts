/**
 * Consumes the counters queue (`shared/domain/attribution/queued-counts.ts`): the counts the ingest, flow,
 * email-events and webhook-delivery workers' batches sent, each message claimed once, summed over the batch (Lambda
 * gathers up to 2 s of messages) and written at its end: one `ADD` per store, scope and day, and per month.
 */
import { QUEUES } from '#shared/catalog/queues.ts';
import { applyCounts, parseCountsMessage } from '#shared/domain/attribution/queued-counts.ts';
import { logger } from '#shared/observability.ts';
import { queueWorker } from '#shared/queue/batch.ts';
import { countsWorker } from '#shared/wiring/counters.ts';

export const handler = queueWorker({
  queue: QUEUES.counters,
  parse: parseCountsMessage,
  handle: async (message) => {
    if (message.invalid > 0)
      logger.warn('Counts message with additions left out', { id: message.id, invalid: message.invalid });
    await applyCounts(countsWorker().deps, message);
  },
  afterBatch: () => countsWorker().flush(),
});
