/** Wiring of the batch import to its adapters (built once per warm function). */

import { coalescedGets, coalescedPuts } from '#shared/adapters/dynamodb/coalesced.ts';
import { batchedContactCounts } from '#shared/adapters/dynamodb/contact-counts.ts';
import { dynamoCustomerRepository } from '#shared/adapters/dynamodb/customer.repository.ts';
import { dynamoImportJobs } from '#shared/adapters/dynamodb/import-jobs.ts';
import { dynamoStoreSlot } from '#shared/adapters/dynamodb/store-slot.ts';
import { dynamoWebhookRepository } from '#shared/adapters/dynamodb/webhook.repositories.ts';
import { s3ImportFiles } from '#shared/adapters/s3/import-files.ts';
import { sqsImportQueue } from '#shared/adapters/sqs/import-queue.ts';
import { systemClock } from '#shared/clock.ts';
import { newId } from '#shared/domain/ids.ts';
import type { RunImportDeps } from '#shared/domain/imports/run-import.ts';
import type { ImportDeps } from '#shared/domain/imports/start-import.ts';
import { webhookEmitter } from '#shared/domain/webhooks/emit.ts';
import { lazy } from '#shared/lazy.ts';
import { segmentsAfterImport } from './segments.ts';
import { emitDeps } from './webhooks.ts';

/** Reading an import job: the jobs table only (no S3 client loaded by the status route). */
export const importJobDeps = /* @__PURE__ */ lazy(() => ({ jobs: dynamoImportJobs() }));

export const importDeps = /* @__PURE__ */ lazy(
  (): ImportDeps => ({
    files: s3ImportFiles(),
    jobs: dynamoImportJobs(),
    queue: sqsImportQueue(),
    throttle: dynamoStoreSlot(systemClock, 'importSlot'),
    webhooks: webhookEmitter(emitDeps()),
    clock: systemClock,
  }),
);

/**
 * The import writes a batch of lines side by side (`run-import.ts`), so what their contacts read and put plainly goes
 * out together: the contacts and the store's webhook subscription read in one `BatchGetItem` per turn of the event
 * loop, the search's lookup items put in one `BatchWriteItem`, and the export's contact counters added once per bucket
 * when the batch ends (ten DynamoDB calls a line before, four of them counter `ADD`s). Each contact's own
 * save stays one conditional put, and its `customer/marketing` event one put-if-absent.
 */
export const runImportDeps = /* @__PURE__ */ lazy((): RunImportDeps => {
  const reads = coalescedGets();
  const counts = batchedContactCounts();
  return {
    files: s3ImportFiles(),
    jobs: dynamoImportJobs(),
    queue: sqsImportQueue(),
    customers: dynamoCustomerRepository(reads, counts.adjust, coalescedPuts()),
    webhooks: webhookEmitter({ ...emitDeps(), webhooks: dynamoWebhookRepository(reads) }),
    clock: systemClock,
    newContactId: () => newId('ct'),
    afterContact: (storeId, customerId, lineId) => segmentsAfterImport(storeId, customerId, lineId),
    afterBatch: () => counts.flush(),
  };
});
