/** Consumes the FIFO ingest queue: applies each accepted event to the store's entities. */
import { applyDeps } from '../../shared/adapters/ingest.ts';
import { applyEvent } from '../../shared/domain/ingest/apply-event.ts';
import { parseIngestMessage } from '../../shared/domain/ingest/ingest-message.ts';
import { fifoQueueWorker } from '../../shared/queue/batch.ts';

export const handler = fifoQueueWorker({
  parse: parseIngestMessage,
  handle: async (message) => {
    await applyEvent(applyDeps(), message);
  },
});
