import { createHash } from 'node:crypto';
import { required } from '../../config.ts';
import type { IngestMessage, IngestQueue } from '../../domain/ports.ts';
import { sqs } from '../aws-clients.ts';
import { batchingSender } from './batching-sender.ts';

/**
 * JSON with the characters SQS emulators may refuse (beyond the Basic Multilingual Plane, e.g. emoji, and the
 * non-characters U+FFFE/U+FFFF) written as `\uXXXX` escapes: the same JSON to any parser. AWS accepts more; fauxqs
 * accepts only #x20–#xFFFD, and a refused send would answer the caller 503.
 */
export const sqsSafeJson = (value: unknown): string =>
  JSON.stringify(value).replace(/[\u{10000}-\u{10FFFF}\uFFFE\uFFFF]/gu, (char) =>
    char
      .split('')
      .map((unit) => `\\u${unit.charCodeAt(0).toString(16)}`)
      .join(''),
  );

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
