import type { SQSRecord } from 'aws-lambda';
import { sqs } from '#shared/adapters/aws-clients.ts';
import { ChangeMessageVisibilityCommand } from '#shared/adapters/sqs-client.ts';
import { WORK_HEARTBEAT } from '#shared/catalog/queues.ts';
import { RetryLater } from '#shared/errors.ts';
import { logger } from '#shared/observability.ts';

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

/**
 * Keeps a message being worked on invisible in short steps instead of one long visibility timeout: it is set to
 * `seconds` now and again every `everyMs` until `stop()`. A worker that dies stops the heartbeat with it, so its
 * message is back on the queue within `seconds`, where a queue-wide timeout long enough for the longest run would
 * hide it for the whole of that (deployed as locally). A failed extension is logged by `onError` and tried again at
 * the next beat; the message then shows again at worst `seconds` after the last one that worked.
 */
export const keepInvisible = (
  queueUrl: string,
  record: Pick<SQSRecord, 'receiptHandle'>,
  options: { readonly seconds: number; readonly everyMs: number; readonly onError?: (error: unknown) => void },
): { stop(): Promise<void> } => {
  const extend = () =>
    sqs()
      .send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: queueUrl,
          ReceiptHandle: record.receiptHandle,
          VisibilityTimeout: options.seconds,
        }),
      )
      .then(
        () => undefined,
        (error: unknown) => options.onError?.(error),
      );
  let pending = extend();
  const timer = setInterval(() => {
    pending = pending.then(extend);
  }, options.everyMs);
  return {
    async stop() {
      clearInterval(timer);
      await pending;
    },
  };
};

/**
 * Runs `work` with the record's message kept invisible by the stage's heartbeat (`WORK_HEARTBEAT`, `keepInvisible`),
 * stopped when the work ends either way: long work's one way to be back on its queue within a minute of a crash.
 */
export const whileInvisible = async <T>(
  queueUrl: string,
  record: Pick<SQSRecord, 'receiptHandle'>,
  what: string,
  work: () => Promise<T>,
): Promise<T> => {
  const heartbeat = keepInvisible(queueUrl, record, {
    ...WORK_HEARTBEAT,
    onError: (error) => logger.warn(`${what} heartbeat failed; tried again at the next beat`, { error }),
  });
  try {
    return await work();
  } finally {
    await heartbeat.stop();
  }
};
