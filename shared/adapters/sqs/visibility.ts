import type { SQSRecord } from 'aws-lambda';
import { sqs } from '#shared/adapters/aws-clients.ts';
import { ChangeMessageVisibilityCommand } from '#shared/adapters/sqs-client.ts';
import { RetryLater } from '#shared/errors.ts';

/**
 * Holds a received message back for `seconds` (its next receive comes no earlier), then fails the record so the queue
 * keeps it: the retry ladder of a queue consumer, counted by the queue's receive count and bounded by its redrive.
 */
export const holdBack = async (queueUrl: string, record: SQSRecord, seconds: number): Promise<never> => {
  await sqs().send(
    new ChangeMessageVisibilityCommand({
      QueueUrl: queueUrl,
      ReceiptHandle: record.receiptHandle,
      VisibilityTimeout: seconds,
    }),
  );
  throw new RetryLater(`retry in ${seconds} s`);
};
