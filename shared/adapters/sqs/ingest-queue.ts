import { createHash } from 'node:crypto';
import { required } from '../../config.ts';
import type { IngestMessage, IngestQueue } from '../../domain/ports.ts';
import { sqs } from '../aws-clients.ts';
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
