/**
 * Consumes the segments queue: builds a new or edited segment's membership (continuing itself in a new message when a
 * store's contacts take longer than one pass), purges a deleted segment's members, and evaluates a contact again when
 * one of its time windows flips.
 */

import { QUEUES } from '#shared/catalog/queues.ts';
import { handleSegmentMessage } from '#shared/domain/segments/build.ts';
import { parseSegmentMessage } from '#shared/domain/segments/segment-message.ts';
import { logger } from '#shared/observability.ts';
import { queueWorker } from '#shared/queue/batch.ts';
import { segmentWorkerDeps } from '#shared/wiring/segments.ts';

/**
 * A pass runs at most this long before it queues its continuation: the worker's timeout bounds a crashed pass, and
 * the contact re-evaluations that share the batch wait at most this long.
 */
const PASS_MS = 60_000;

export const handler = queueWorker({
  queue: QUEUES.segments,
  parse: parseSegmentMessage,
  handle: async (message, { context }) => {
    const started = Date.now();
    const hasTime = () => Date.now() - started < PASS_MS && context.getRemainingTimeInMillis() > 30_000;
    const outcome = await handleSegmentMessage(segmentWorkerDeps(), message, hasTime);
    logger.info('Segment message handled', { storeId: message.storeId, type: message.type, ...outcome });
  },
});
