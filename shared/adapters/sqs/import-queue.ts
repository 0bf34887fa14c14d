/** The import queue: `{v: 1, storeId, jobId}` per job (and per continuation of a long one). */
import { sqs } from '#shared/adapters/aws-clients.ts';
import { required } from '#shared/config.ts';
import type { ImportQueue } from '#shared/domain/imports/ports.ts';
import { batchingSender } from './batching-sender.ts';

export const sqsImportQueue = (): ImportQueue => {
  const send = batchingSender(sqs, () => required('importQueueUrl'));
  return {
    enqueue: (storeId, jobId) =>
      send({ MessageBody: JSON.stringify({ v: 1, storeId, jobId }), MessageGroupId: storeId }),
  };
};
