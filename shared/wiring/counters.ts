/**
 * The counts the queue workers add during a batch (`queued-counts.ts`): each worker's batch sends them at its end
 * (`afterBatch`) as one message on the counters queue (one buffer per worker: each function builds its own under
 * `lazy`), and the counters worker writes them, summed over many batches (`countsWorker`).
 */
import { randomUUID } from 'node:crypto';
import { setTimeout } from 'node:timers/promises';
import pLimit from 'p-limit';
import { dynamoAttribution } from '#shared/adapters/dynamodb/attribution.ts';
import { dynamoCountsClaims } from '#shared/adapters/dynamodb/counts-claims.ts';
import { sqsCountsQueue } from '#shared/adapters/sqs/counts-queue.ts';
import { type CounterBuffer, counterBuffer, flushPersistently } from '#shared/domain/attribution/counter-buffer.ts';
import { type CountsDeps, queuedCounters } from '#shared/domain/attribution/queued-counts.ts';
import { lazy } from '#shared/lazy.ts';
import { logger } from '#shared/observability.ts';

/** A buffer whose flush queues the batch's counts; `what` names them in the warning a failed send logs. */
export const batchCounters = (what: string): CounterBuffer =>
  queuedCounters(dynamoAttribution(), sqsCountsQueue(), randomUUID, (error, kept) =>
    logger.warn(`${what} counts not queued; kept for the next batch`, { error, kept }),
  );

/**
 * At most this many of the counters worker's calls at once: its batch is a burst (a claim per message, then an `ADD`
 * per counter), which it spreads instead of sending all at once ahead of the hot paths' calls to the same table (the
 * local runtime's one DynamoDB thread; partitions in AWS). The noisy bench's victims, alone, p99 (27 November 2026,
 * two runs each): before the counters queue, event → applied 8–12 ms and trigger → email 25–27 ms; all at once 23–40
 * and 34–56 ms; four at a time 13–15 and 40–41 ms; two at a time 10–11 and 25–31 ms.
 */
const CALLS_AT_ONCE = 2;

/** The counters worker's claims, and its batch's sums of the claimed messages' counts, written at the batch's end. */
export const countsWorker = /* @__PURE__ */ lazy((): { deps: CountsDeps; flush: () => Promise<void> } => {
  const atOnce = pLimit(CALLS_AT_ONCE);
  const attribution = dynamoAttribution();
  const claims = dynamoCountsClaims();
  const buffer = counterBuffer(
    { ...attribution, addTo: (...args) => atOnce(() => attribution.addTo(...args)) },
    (error, kept) => logger.warn('Counters not written; kept for the next batch', { error, kept }),
  );
  return {
    deps: { claims: { claim: (id) => atOnce(() => claims.claim(id)) }, counters: buffer.store },
    // Its claims are taken: what it fails to write would wait for this worker's next batch, which an idle queue may
    // not bring soon, so it tries again within the invocation first (its 10 s leave ample room).
    flush: async () => {
      await flushPersistently(buffer, [200, 800], setTimeout);
    },
  };
});
