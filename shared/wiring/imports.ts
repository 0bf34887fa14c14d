/** Wiring of the batch import to its adapters (built once per warm function). */

import { dynamoCustomerRepository } from '#shared/adapters/dynamodb/customer.repository.ts';
import { dynamoImportJobs } from '#shared/adapters/dynamodb/import-jobs.ts';
import { dynamoImportThrottle } from '#shared/adapters/dynamodb/import-throttle.ts';
import { s3ImportFiles } from '#shared/adapters/s3/import-files.ts';
import { sqsImportQueue } from '#shared/adapters/sqs/import-queue.ts';
import { newId } from '#shared/domain/ids.ts';
import type { RunImportDeps } from '#shared/domain/imports/run-import.ts';
import type { ImportDeps } from '#shared/domain/imports/start-import.ts';
import { webhookEmitter } from '#shared/domain/webhooks/emit.ts';
import { lazy } from '#shared/lazy.ts';
import { systemClock } from './clock.ts';
import { segmentsAfterImport } from './segments.ts';
import { emitDeps } from './webhooks.ts';

/** Reading an import job: the jobs table only (no S3 client loaded by the status route). */
export const importJobDeps = /* @__PURE__ */ lazy(() => ({ jobs: dynamoImportJobs() }));

export const importDeps = /* @__PURE__ */ lazy(
  (): ImportDeps => ({
    files: s3ImportFiles(),
    jobs: dynamoImportJobs(),
    queue: sqsImportQueue(),
    throttle: dynamoImportThrottle(systemClock),
    webhooks: webhookEmitter(emitDeps()),
    clock: systemClock,
  }),
);

export const runImportDeps = /* @__PURE__ */ lazy(
  (): RunImportDeps => ({
    files: s3ImportFiles(),
    jobs: dynamoImportJobs(),
    queue: sqsImportQueue(),
    customers: dynamoCustomerRepository(),
    webhooks: webhookEmitter(emitDeps()),
    clock: systemClock,
    newContactId: () => newId('ct'),
    afterContact: (storeId, customerId, lineId) => segmentsAfterImport(storeId, customerId, lineId),
  }),
);
