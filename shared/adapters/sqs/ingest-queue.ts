import { createHash } from 'node:crypto';
import { sqs } from '#shared/adapters/aws-clients.ts';
import { required } from '#shared/config.ts';
import type { IngestMessage } from '#shared/domain/ingest/model.ts';
import type { IngestQueue } from '#shared/domain/ingest/ports.ts';
import { batchingSender, sqsSafeJson } from './batching-sender.ts';

/**
 * The FIFO ingest queue. The de-duplication id is store + `source_id` (hashed to SQS's character set), so a send
 * retried after an ambiguous failure is dropped by SQS instead of being applied twice.
 */
export const sqsIngestQueue = (): IngestQueue => {
  const send = batchingSender(sqs, () => required('ingestQueueUrl'));
  return {
    send: (message: IngestMessage, groupKey: string) =>
      send({
        MessageBody: sqsSafeJson(message),
        MessageGroupId: groupKey,
        MessageDeduplicationId: createHash('sha256').update(`${message.storeId}\n${message.sourceId}`).digest('hex'),
      }),
  };
};
