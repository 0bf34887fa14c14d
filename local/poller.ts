/**
 * Queue pollers: feed SQS batches to a worker handler the way Lambda's event source mapping does. The handler's
 * `batchItemFailures` stay on the queue (they reappear after the visibility timeout and, after `maxReceiveCount`
 * receives, the queue moves them to its DLQ); every other record of the batch is deleted. A handler that throws leaves
 * the whole batch on the queue.
 */

import { Agent } from 'node:http';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import {
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  SQSClient,
} from '#shared/adapters/sqs-client.ts';
import { leanClient } from './lean-clients.ts';
import { REGION } from './resources.ts';

/** SQS answers at most 10 messages per receive and takes at most 10 per delete batch. */
const RECEIVE_MAX = 10;
/** Between receives that found nothing while a batch is gathered. */
const GATHER_PAUSE_MS = 100;

export type QueueLambda = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | undefined>;

/**
 * The SQS client a poller reads with: the service's own (`sqs-client.ts`), lean as the service's clients are in the
 * local runtime (unsigned, no user agent). It is not shown to the client observers: their SQS faults and recorded
 * calls are the service's, not the event source mapping's.
 *
 * Its connections are not capped: each poller keeps a long poll open and its batches' gathering receives and
 * deletes besides, and behind the HTTP handler's default of 50 sockets (when every unit of concurrency had a long poll
 * of its own, some 65 at the noisy bench's 8) a busy queue's receive waited in the agent's queue until another
 * queue's idle poll ended: an event sent to an idle runtime was picked up 150–730 ms late (27 November 2026).
 */
export const pollerClient = (endpoint: string): SQSClient => {
  const client = new SQSClient({
    region: REGION,
    endpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  client.config.requestHandler = new NodeHttpHandler({
    httpAgent: new Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY }),
  });
  return leanClient('sqs', client);
};

export interface PollerOptions {
  readonly sqs: SQSClient;
  readonly queueUrl: string;
  readonly queueArn: string;
  /** Records per invocation; over SQS's 10 per receive, several receives fill it (within the batching window). */
  readonly batchSize: number;
  /** Like Lambda's `MaximumBatchingWindowInSeconds`: how long to gather records for a batch not yet full. */
  readonly batchingWindowSeconds?: number;
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
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
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
    for (let i = 0; i < done.length; i += RECEIVE_MAX) {
      await options.sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: options.queueUrl,
          Entries: done.slice(i, i + RECEIVE_MAX).map((r, k) => ({ Id: String(k), ReceiptHandle: r.receiptHandle })),
        }),
      );
    }
  };

  const receive = async (max: number, waitSeconds: number) => {
    const { Messages = [] } = await options.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: options.queueUrl,
        MaxNumberOfMessages: Math.min(RECEIVE_MAX, max),
        WaitTimeSeconds: waitSeconds,
        MessageSystemAttributeNames: ['All'],
      }),
      { abortSignal: stopping.signal },
    );
    return Messages;
  };

  /** After a first receive: more, until the batch is full or the window (monotonic time: tests move `Date`) ends. */
  const gather = async (batch: Message[]) => {
    const windowMs = (options.batchingWindowSeconds ?? 0) * 1000;
    const until = performance.now() + windowMs;
    while (batch.length < options.batchSize && !stopping.signal.aborted) {
      const left = until - performance.now();
      if (left <= 0) break;
      const more = await receive(options.batchSize - batch.length, 0);
      if (more.length === 0) await sleep(Math.min(GATHER_PAUSE_MS, left), stopping.signal);
      batch.push(...more);
    }
    return batch;
  };

  // One receive at a time, and up to `concurrency` batches running, as Lambda's pollers hand batches to concurrent
  // invocations. A receive loop per unit of concurrency kept that many long polls open on every queue, and each
  // message woke all of them (the emulator answers every waiting poll): at the noisy bench's 8, some 600 empty
  // receives a second went through this process's HTTP stack for 40 events a second (27 November 2026), CPU that a
  // deployment's pollers do not take from its functions.
  const limit = Math.max(1, options.concurrency ?? 2);
  const running = new Set<Promise<void>>();
  const dispatch = (messages: Message[]) => {
    const batch = (async () => {
      try {
        await runBatch(await gather(messages));
      } catch (error) {
        if (!stopping.signal.aborted) options.onError?.(error);
      }
    })();
    running.add(batch);
    void batch.finally(() => running.delete(batch));
  };
  const receiveLoop = async () => {
    while (!stopping.signal.aborted) {
      if (paused) {
        await sleep(50, stopping.signal);
        continue;
      }
      if (running.size >= limit) {
        await Promise.race(running);
        continue;
      }
      try {
        const messages = await receive(options.batchSize, 1);
        if (messages.length > 0) dispatch(messages);
      } catch (error) {
        if (stopping.signal.aborted) return;
        options.onError?.(error);
        await sleep(500, stopping.signal);
      }
    }
  };

  const receiving = receiveLoop();
  return {
    async stop() {
      stopping.abort();
      await receiving;
      await Promise.allSettled(running);
    },
    pause() {
      paused = true;
    },
    resume() {
      paused = false;
    },
  };
};
