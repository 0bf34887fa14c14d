/** Consumes the FIFO ingest queue: applies each accepted event to the store's entities and starts its flows. */

import { QUEUES } from '#shared/catalog/queues.ts';
import { systemClock } from '#shared/clock.ts';
import { countEventApplied, countEventFailed } from '#shared/domain/console/activity.ts';
import { applyEvent } from '#shared/domain/ingest/apply-event.ts';
import { BatchSummary } from '#shared/domain/ingest/batch-summary.ts';
import { failEvent } from '#shared/domain/ingest/fail-event.ts';
import { parseIngestMessage } from '#shared/domain/ingest/ingest-message.ts';
import { segmentsAfterEvent } from '#shared/domain/segments/after-event.ts';
import { logger } from '#shared/observability.ts';
import { fifoQueueWorker } from '#shared/queue/batch.ts';
import { followUp } from '#shared/queue/follow-up.ts';
import {
  applyDeps,
  eventCounters,
  failEventDeps,
  flushContactCounts,
  flushEventCounters,
  forgetBatchStores,
  historyBuffer,
  historyDeps,
} from '#shared/wiring/ingest.ts';
import { forgetBatchSegments, segmentEventDeps } from '#shared/wiring/segments.ts';

/** The batch's applied events, logged as one INFO line when it ends (each event's own line is DEBUG). */
const summary = new BatchSummary();

export const handler = fifoQueueWorker({
  queue: QUEUES.ingest,
  parse: parseIngestMessage,
  handle: async (message) => {
    const outcome = await applyEvent(applyDeps(), message);
    // Kept for flow backtests (docs/backtest.md): the batch's applied events, written packed when the batch ends.
    historyBuffer.add(message);
    // Segments the changed contact entered or left, within the same delivery: seconds after the event.
    const segments = await followUp('Segment step', () => segmentsAfterEvent(segmentEventDeps(), message, outcome), {
      storeId: message.storeId,
      sourceId: message.sourceId,
    });
    await countEventApplied(eventCounters(), message, systemClock.now());
    summary.add(message.storeId, outcome);
    logger.debug('Event applied', {
      storeId: message.storeId,
      sourceId: message.sourceId,
      endpoint: message.endpoint,
      interface: message.interface,
      ...outcome,
      segments,
    });
  },
  // An event that can never apply is recorded as failed on the store's event record, then acknowledged.
  onPermanent: async (message, error) => {
    await failEvent(failEventDeps(), message, error);
    await countEventFailed(eventCounters(), message.storeId, systemClock.now());
  },
  // The batch's event history (one compressed pack per store and day), its event counts (the console's overview,
  // one write per store and day) and its new contacts' counts (the export's, one write per store and bucket); the segments and store settings it read forgotten; one log line for the batch.
  afterBatch: async () => {
    forgetBatchSegments();
    forgetBatchStores();
    const applied = summary.take();
    if (applied) logger.info('Events applied', { ...applied });
    await Promise.all([historyBuffer.flush(historyDeps()), flushEventCounters(), flushContactCounts()]);
  },
});
