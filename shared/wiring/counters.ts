/**
 * Day counters a queue worker adds during a batch and writes at its end (`counter-buffer.ts`, the worker's
 * `afterBatch`): one per worker (each function builds its own under `lazy`).
 */
import { dynamoAttribution } from '#shared/adapters/dynamodb/attribution.ts';
import { type CounterBuffer, counterBuffer } from '#shared/domain/attribution/counter-buffer.ts';
import { logger } from '#shared/observability.ts';

/** A buffer over the table's day counters; `what` names them in the warning a failed write logs. */
export const batchCounters = (what: string): CounterBuffer =>
  counterBuffer(dynamoAttribution(), (error, kept) =>
    logger.warn(`${what} counters not written; kept for the next batch`, { error, kept }),
  );
