/**
 * The standard queues (flows, sends, webhooks, imports, segments) are shared by every store: each message names its store as its
 * MessageGroupId, which makes a deployed standard queue an SQS fair queue (one store's backlog no longer delays the
 * others' messages: SQS hands quiet stores' messages out first). The local SQS accepts the attribute and ignores it.
 */
import { ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { sqsDeliveryQueue } from '#shared/adapters/sqs/delivery-queue.ts';
import { sqsFlowQueue } from '#shared/adapters/sqs/flow-queue.ts';
import { sqsImportQueue } from '#shared/adapters/sqs/import-queue.ts';
import { sqsSegmentQueue } from '#shared/adapters/sqs/segment-queue.ts';
import { sqsSendQueue } from '#shared/adapters/sqs/send-queue.ts';
import { addClientMiddleware, type MiddlewareArgs } from '#test/support/aws-faults.ts';

let runtime: LocalRuntime;
let sqs: SQSClient;
const sent: { queue: string; groupId: unknown; body: string }[] = [];
let stopRecording: () => void;

beforeAll(async () => {
  runtime = await startLocalRuntime({ pollers: false, gateways: false, logLevel: 'ERROR' });
  sqs = new SQSClient({
    region: 'us-east-1',
    endpoint: runtime.urls.sqs,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  stopRecording = addClientMiddleware('sqs', (next) => async (args: MiddlewareArgs) => {
    const input = args.input as { QueueUrl?: string; MessageGroupId?: unknown; MessageBody?: string; Entries?: [] };
    const entries: { MessageGroupId?: unknown; MessageBody?: string }[] = input.Entries ?? [input];
    for (const entry of entries) {
      sent.push({ queue: String(input.QueueUrl), groupId: entry.MessageGroupId, body: String(entry.MessageBody) });
    }
    return next(args);
  });
});

afterAll(async () => {
  stopRecording?.();
  sqs?.destroy();
  await runtime?.stop();
});

describe('messages of the shared standard queues', () => {
  it("carry their store as MessageGroupId (a fair queue's tenant), and the queue takes them", async () => {
    await sqsFlowQueue().trigger('st_flows', 'tr_1', 5, 2);
    await sqsFlowQueue().resume('st_flows', 'run_1', 'step_1');
    await sqsSendQueue().startBatch('st_sends', 'sb_1');
    await sqsSendQueue().enqueueChunks('st_sends', 'sb_1', [0, 1, 2]);
    await sqsDeliveryQueue().enqueue('st_hooks', 'dl_1');
    await sqsImportQueue().enqueue('st_imports', 'im_1');
    await sqsSegmentQueue().send({ v: 1, type: 'purge', storeId: 'st_segments', segmentId: 'sg_1' });

    expect(sent).toHaveLength(9);
    for (const message of sent) {
      expect(message.groupId).toBe((JSON.parse(message.body) as { storeId: string }).storeId);
    }
    const queues = new Map([
      [runtime.queueUrls.flows, 2],
      [runtime.queueUrls.sends, 4],
      [runtime.queueUrls.webhooks, 1],
      [runtime.queueUrls.imports, 1],
      [runtime.queueUrls.segments, 1],
    ]);
    for (const [queueUrl, count] of queues) {
      expect(sent.filter((m) => m.queue === queueUrl)).toHaveLength(count);
      const received = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 60 }),
      );
      // The trigger was sent with a 5 s delay: one of the flows queue's two is not visible yet.
      expect(received.Messages?.length).toBe(queueUrl === runtime.queueUrls.flows ? 1 : count);
    }
  });
});
