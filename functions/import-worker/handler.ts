/** Consumes the import queue: streams a job's file and upserts its contacts (continuing in a new message if long). */

import { whileInvisible } from '#shared/adapters/sqs/visibility.ts';
import { QUEUES } from '#shared/catalog/queues.ts';
import { required } from '#shared/config.ts';
import { parseImportMessage } from '#shared/domain/imports/import-message.ts';
import { runImport } from '#shared/domain/imports/run-import.ts';
import { logger } from '#shared/observability.ts';
import { queueWorker } from '#shared/queue/batch.ts';
import { runImportDeps } from '#shared/wiring/imports.ts';
import { forgetBatchSegments } from '#shared/wiring/segments.ts';

export const handler = queueWorker({
  queue: QUEUES.imports,
  parse: parseImportMessage,
  handle: async (message, { context, lastAttempt, record }) => {
    // Invisible a minute at a time while it runs: a worker that dies leaves its job to another within a minute, from
    // the last saved place, not after the queue's half-hour timeout.
    const outcome = await whileInvisible(required('importQueueUrl'), record, 'Import', () =>
      runImport(runImportDeps(), message, () => context.getRemainingTimeInMillis(), { lastAttempt }),
    );
    logger.info('Import run', { ...message, outcome });
  },
  // The store's segments the run read (its contacts' segment step), forgotten.
  afterBatch: async () => forgetBatchSegments(),
});
