import { describe, expect, it } from 'vitest';
import { batchingSender } from '#shared/adapters/sqs/batching-sender.ts';
import type { SQSClient } from '#shared/adapters/sqs-client.ts';
import { SendMessageBatchCommand, SendMessageCommand } from '#shared/adapters/sqs-client.ts';

type Sent = SendMessageCommand | SendMessageBatchCommand;

/** An SQS client double that records commands and answers with `answer`. */
const fakeClient = (answer: (command: Sent) => Promise<unknown> = async () => ({})) => {
  const sent: Sent[] = [];
  const client = {
    send: (command: Sent) => {
      sent.push(command);
      return answer(command);
    },
  } as unknown as SQSClient;
  return { client, sent };
};

const message = (n: number) => ({ MessageBody: `body-${n}`, MessageGroupId: 'g', MessageDeduplicationId: `d-${n}` });

describe('batching SQS sender', () => {
  it('sends a lone message with SendMessage', async () => {
    const { client, sent } = fakeClient();
    await batchingSender(
      () => client,
      () => 'url',
    )(message(1));
    expect(sent).toHaveLength(1);
    expect(sent[0]).toBeInstanceOf(SendMessageCommand);
    expect(sent[0]?.input).toMatchObject({ QueueUrl: 'url', MessageBody: 'body-1' });
  });

  it('coalesces concurrent sends into batches of at most 10, in order', async () => {
    const { client, sent } = fakeClient();
    const send = batchingSender(
      () => client,
      () => 'url',
    );
    await Promise.all(Array.from({ length: 23 }, (_, i) => send(message(i))));
    expect(sent.map((c) => (c instanceof SendMessageBatchCommand ? c.input.Entries?.length : 1))).toEqual([10, 10, 3]);
    const bodies = sent.flatMap((c) =>
      c instanceof SendMessageBatchCommand ? (c.input.Entries ?? []).map((e) => e.MessageBody) : [c.input.MessageBody],
    );
    expect(bodies).toEqual(Array.from({ length: 23 }, (_, i) => `body-${i}`));
  });

  it('fails only the caller whose entry SQS refused', async () => {
    const { client } = fakeClient(async () => ({
      Failed: [{ Id: '1', Code: 'InvalidMessageContents', Message: 'bad' }],
    }));
    const send = batchingSender(
      () => client,
      () => 'url',
    );
    const results = await Promise.allSettled([send(message(0)), send(message(1)), send(message(2))]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({
      name: 'InvalidMessageContents',
      message: 'bad',
    });
  });

  it('fails every caller of a batch when the call itself fails, and the next batch goes through', async () => {
    let calls = 0;
    const { client } = fakeClient(async () => {
      calls += 1;
      if (calls === 1) throw new Error('network down');
      return {};
    });
    const send = batchingSender(
      () => client,
      () => 'url',
    );
    const first = await Promise.allSettled([send(message(0)), send(message(1))]);
    expect(first.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    await expect(send(message(2))).resolves.toBeUndefined();
  });

  it('starts a new batch before the payload would pass 256 KiB', async () => {
    const { client, sent } = fakeClient();
    const send = batchingSender(
      () => client,
      () => 'url',
    );
    const big = (n: number) => ({ ...message(n), MessageBody: 'x'.repeat(100 * 1024) });
    await Promise.all([send(big(0)), send(big(1)), send(big(2))]);
    expect(sent.map((c) => (c instanceof SendMessageBatchCommand ? c.input.Entries?.length : 1))).toEqual([2, 1]);
  });
});
