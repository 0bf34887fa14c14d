/**
 * The heartbeat of long work on the local SQS (`keepInvisible`): a message being worked on stays invisible past its
 * receive's timeout while the beats go on, and is back within the heartbeat's seconds once they stop, as a crashed
 * worker's would be (the import worker's recovery bound, docs/limits.md).
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { sqs } from '#shared/adapters/aws-clients.ts';
import { keepInvisible } from '#shared/adapters/sqs/visibility.ts';
import { ReceiveMessageCommand, SendMessageCommand } from '#shared/adapters/sqs-client.ts';

let runtime: LocalRuntime;

beforeAll(async () => {
  runtime = await startLocalRuntime({ gateways: false, pollers: false, logLevel: 'ERROR' });
});

afterAll(async () => {
  await runtime?.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('keepInvisible', () => {
  it('keeps a message invisible while it beats, and lets it show again within its seconds once stopped', async () => {
    const queueUrl = runtime.queueUrls.imports;
    await sqs().send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: '{"job":"heartbeat"}' }));
    const receive = async () =>
      (await sqs().send(new ReceiveMessageCommand({ QueueUrl: queueUrl, VisibilityTimeout: 1, WaitTimeSeconds: 0 })))
        .Messages ?? [];
    const [message] = await receive();
    if (!message?.ReceiptHandle) throw new Error('no message received');

    const heartbeat = keepInvisible(queueUrl, { receiptHandle: message.ReceiptHandle }, { seconds: 2, everyMs: 500 });
    await sleep(3000);
    // Three seconds after a receive with a one-second timeout: still hidden, the beats moved it on.
    expect(await receive()).toEqual([]);
    await heartbeat.stop();
    await sleep(2500);
    expect((await receive()).map((m) => m.Body)).toEqual(['{"job":"heartbeat"}']);
  });
});
