/** Wiring of the batch import to its adapters (built once per warm function). */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, sqs } from '#shared/adapters/aws-clients.ts';
import { dynamoCustomerRepository } from '#shared/adapters/dynamodb/customer.repository.ts';
import { itemMeta, keys } from '#shared/adapters/dynamodb/keys.ts';
import { revisionedRepository } from '#shared/adapters/dynamodb/revisioned.ts';
import { isConditionFailure, tableName } from '#shared/adapters/dynamodb/table.ts';
import { s3ImportFiles } from '#shared/adapters/s3/import-files.ts';
import { batchingSender } from '#shared/adapters/sqs/batching-sender.ts';
import { required } from '#shared/config.ts';
import { newId } from '#shared/domain/ids.ts';
import type { ImportJob } from '#shared/domain/imports/model.ts';
import type { ImportQueue, ImportThrottle } from '#shared/domain/imports/ports.ts';
import type { RunImportDeps } from '#shared/domain/imports/run-import.ts';
import type { ImportDeps } from '#shared/domain/imports/start-import.ts';
import { webhookEmitter } from '#shared/domain/webhooks/emit.ts';
import { emitDeps } from './webhooks.ts';

const clock = { now: () => Date.now() };

const jobs = () => revisionedRepository<ImportJob>({ entity: 'importJob', key: keys.importJob, idOf: (job) => job.id });

const sqsImportQueue = (): ImportQueue => {
  const send = batchingSender(sqs, () => required('importQueueUrl'));
  return { enqueue: (storeId, jobId) => send({ MessageBody: JSON.stringify({ v: 1, storeId, jobId }) }) };
};

/** One conditional put: the slot is free when absent or expired, and claiming it sets when it frees up again. */
const dynamoImportThrottle = (): ImportThrottle => ({
  async claim(storeId, seconds) {
    const now = clock.now();
    try {
      await dynamo().send(
        new PutCommand({
          TableName: tableName(),
          Item: {
            ...keys.importSlot(storeId),
            ...itemMeta('importSlot'),
            until: now + seconds * 1000,
            expiresAt: Math.floor(now / 1000) + seconds + 60,
          },
          ConditionExpression: 'attribute_not_exists(pk) OR #until <= :now',
          ExpressionAttributeNames: { '#until': 'until' },
          ExpressionAttributeValues: { ':now': now },
        }),
      );
      return { claimed: true };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      return { claimed: false, retryAfterSeconds: seconds };
    }
  },
});

let start: ImportDeps | undefined;
let run: RunImportDeps | undefined;

export const importDeps = (): ImportDeps => {
  start ??= { files: s3ImportFiles(), jobs: jobs(), queue: sqsImportQueue(), throttle: dynamoImportThrottle(), clock };
  return start;
};

export const runImportDeps = (): RunImportDeps => {
  run ??= {
    files: s3ImportFiles(),
    jobs: jobs(),
    queue: sqsImportQueue(),
    customers: dynamoCustomerRepository(),
    webhooks: webhookEmitter(emitDeps()),
    clock,
    newContactId: () => newId('ct'),
  };
  return run;
};
