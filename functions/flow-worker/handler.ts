/** Consumes the flows queue: evaluates flow triggers against the store's flows and moves runs on (waits, emails). */

import { QUEUES } from '#shared/catalog/queues.ts';
import { handleFlowMessage } from '#shared/domain/flows/engine.ts';
import { parseFlowMessage } from '#shared/domain/flows/flow-message.ts';
import { logger } from '#shared/observability.ts';
import { queueWorker } from '#shared/queue/batch.ts';
import { afterFlowBatch, flowEngineDeps } from '#shared/wiring/flow-engine.ts';

export const handler = queueWorker({
  queue: QUEUES.flows,
  parse: parseFlowMessage,
  handle: async (message, { lastAttempt }) => {
    // On the queue's last delivery a failing email send fails the run (recorded) instead of going silently to the DLQ.
    const outcome = await handleFlowMessage(flowEngineDeps(), message, { lastAttempt });
    logger.info('Flow message handled', { storeId: message.storeId, type: message.type, ...outcome });
  },
  // The batch's funnel counters, one write per store, scope and day; the flows it read are forgotten.
  afterBatch: afterFlowBatch,
});
