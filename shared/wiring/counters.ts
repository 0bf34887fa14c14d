/**
 * The counts the queue workers add during a batch (`queued-counts.ts`): each worker's batch sends them at its end
 * (`afterBatch`) as one message on the counters queue (one buffer per worker: each function builds its own under
 * `lazy`), and the counters worker writes them, summed over many batches (`countsWorker`).
 */
import { randomUUID } from 'node:crypto';
import { dynamoAttribution } from '#shared/adapters/dynamodb/attribution.ts';
import { dynamoCountsClaims } from '#shared/adapters/dynamodb/counts-claims.ts';
import { sqsCountsQueue } from '#shared/adapters/sqs/counts-queue.ts';
import { type CounterBuffer, counterBuffer } from '#shared/domain/attribution/counter-buffer.ts';
import { type CountsDeps, queuedCounters } from '#shared/domain/attribution/queued-counts.ts';
import { lazy } from '#shared/lazy.ts';
import { logger } from '#shared/observability.ts';

/** A buffer whose flush queues the batch's counts; `what` names them in the warning a failed send logs. */
export const batchCounters = (what: string): CounterBuffer =>
  queuedCounters(dynamoAttribution(), sqsCountsQueue(), randomUUID, (error, kept) =>
    logger.warn(`${what} counts not queued; kept for the next batch`, { error, kept }),
  );

/** The counters worker's claims, and its batch's sums of the claimed messages' counts, written at the batch's end. */
export const countsWorker = /* @__PURE__ */ lazy((): { deps: CountsDeps; flush: () => Promise<void> } => {
  const buffer = counterBuffer(dynamoAttribution(), (error, kept) =>
    logger.warn('Counters not written; kept for the next batch', { error, kept }),
  );
  return { deps: { claims: dynamoCountsClaims(), counters: buffer.store }, flush: () => buffer.flush() };
});
