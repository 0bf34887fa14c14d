/**
 * Queue pollers: feed SQS batches to a worker handler the way Lambda's event source mapping does. The handler's
 * `batchItemFailures` stay on the queue (they reappear after the visibility timeout and, after `maxReceiveCount`
 * receives, the queue moves them to its DLQ); every other record of the batch is deleted. A handler that throws leaves
 * the whole batch on the queue.
 */
import { DeleteMessageBatchCommand, type Message, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';

export type QueueLambda = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | undefined>;

export interface PollerOptions {
  readonly sqs: SQSClient;
  readonly queueUrl: string;
  readonly queueArn: string;
  readonly batchSize: number;
  readonly invoke: QueueLambda;
  readonly context: () => Context;
  /** Parallel receive loops, like Lambda scaling out over message groups. */
  readonly concurrency?: number;
  readonly onError?: (error: unknown) => void;
}

export interface Poller {
  /** Resolves once every loop has finished its current batch. */
  stop(): Promise<void>;
  /** Pauses receiving (in-flight batches finish); `resume` starts again. Used by benchmarks to isolate the API. */
  pause(): void;
  resume(): void;
}

const toRecord = (message: Message, queueArn: string): SQSRecord => {
  const attributes = message.Attributes ?? {};
  return {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes: {
      ApproximateReceiveCount: attributes.ApproximateReceiveCount ?? '1',
      SentTimestamp: attributes.SentTimestamp ?? String(Date.now()),
      SenderId: attributes.SenderId ?? 'local',
      ApproximateFirstReceiveTimestamp: attributes.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
      ...(attributes.MessageGroupId ? { MessageGroupId: attributes.MessageGroupId } : {}),
      ...(attributes.MessageDeduplicationId ? { MessageDeduplicationId: attributes.MessageDeduplicationId } : {}),
      ...(attributes.SequenceNumber ? { SequenceNumber: attributes.SequenceNumber } : {}),
    },
    messageAttributes: {},
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: 'us-east-1',
  };
};

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

export const startPoller = (options: PollerOptions): Poller => {
  const stopping = new AbortController();
  let paused = false;

  const runBatch = async (messages: Message[]) => {
    const records = messages.map((m) => toRecord(m, options.queueArn));
    let failedIds: Set<string>;
    try {
      const response = await options.invoke({ Records: records }, options.context());
      failedIds = new Set((response?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
    } catch (error) {
      options.onError?.(error);
      return; // Lambda semantics: a failed invocation returns the whole batch to the queue.
    }
    const done = records.filter((r) => !failedIds.has(r.messageId));
    if (done.length === 0) return;
    await options.sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: options.queueUrl,
        Entries: done.map((r, i) => ({ Id: String(i), ReceiptHandle: r.receiptHandle })),
      }),
    );
  };

  const loop = async () => {
    while (!stopping.signal.aborted) {
      if (paused) {
        await sleep(50, stopping.signal);
        continue;
      }
      try {
        const { Messages = [] } = await options.sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: options.queueUrl,
            MaxNumberOfMessages: options.batchSize,
            WaitTimeSeconds: 1,
            MessageSystemAttributeNames: ['All'],
          }),
          { abortSignal: stopping.signal },
        );
        if (Messages.length > 0) await runBatch(Messages);
      } catch (error) {
        if (stopping.signal.aborted) return;
        options.onError?.(error);
        await sleep(500, stopping.signal);
      }
    }
  };

  const loops = Array.from({ length: options.concurrency ?? 2 }, loop);
  return {
    async stop() {
      stopping.abort();
      await Promise.allSettled(loops);
    },
    pause() {
      paused = true;
    },
    resume() {
      paused = false;
    },
  };
};
