import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TABLE_NAME } from '#local/resources.ts';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamo } from '#shared/adapters/aws-clients.ts';
import { dynamoSentMessages, dynamoSuppressions } from '#shared/adapters/dynamodb/email.repositories.ts';
import { keys } from '#shared/adapters/dynamodb/keys.ts';
import { GetCommand } from '#shared/adapters/dynamodb-client.ts';
import type { SentMessage } from '#shared/domain/email/model.ts';

let runtime: LocalRuntime;
beforeAll(async () => {
  runtime = await startLocalRuntime({ gateways: false, pollers: false, logLevel: 'ERROR' });
});
afterAll(async () => {
  await runtime?.stop();
});

const calls = (operation: string) => runtime.dynamodbCalls()[operation] ?? 0;

describe('DynamoDB suppressions', () => {
  it('finds the suppressed addresses among many, case-insensitively, in batches of 100 keys', async () => {
    const suppressions = dynamoSuppressions();
    const storeId = `s-${randomUUID()}`;
    await suppressions.suppress({ storeId, email: 'Gone@Example.com', reason: 'unsubscribed', at: 1 });
    await suppressions.suppress({ storeId, email: 'bounced@example.com', reason: 'hard_bounce', at: 2 });
    const emails = Array.from({ length: 250 }, (_, i) => `person${i}@example.com`);
    emails.push('gone@example.COM', 'BOUNCED@example.com');
    const before = calls('BatchGetItem');
    const found = await suppressions.suppressedAmong(storeId, emails);
    expect(found).toEqual(new Set(['gone@example.com', 'bounced@example.com']));
    // 252 distinct addresses: 3 reads of at most 100 keys.
    expect(calls('BatchGetItem') - before).toBe(3);
  });

  it('keeps each store to its own list', async () => {
    const suppressions = dynamoSuppressions();
    const [a, b] = [`s-${randomUUID()}`, `s-${randomUUID()}`];
    await suppressions.suppress({ storeId: a, email: 'x@example.com', reason: 'complaint', at: 1 });
    expect(await suppressions.suppressedAmong(b, ['x@example.com'])).toEqual(new Set());
    expect(await suppressions.suppressedAmong(a, [])).toEqual(new Set());
  });

  it('keeps the first reason when the address is suppressed again', async () => {
    const suppressions = dynamoSuppressions();
    const storeId = `s-${randomUUID()}`;
    await suppressions.suppress({ storeId, email: 'y@example.com', reason: 'unsubscribed', at: 10 });
    await suppressions.suppress({ storeId, email: 'Y@example.com', reason: 'hard_bounce', at: 20 });
    const { Item } = await dynamo().send(
      new GetCommand({ TableName: TABLE_NAME, Key: keys.suppression(storeId, 'y@example.com') }),
    );
    expect(Item).toMatchObject({ reason: 'unsubscribed', at: 10, email: 'y@example.com' });
  });
});

const message = (i: number, storeId: string): SentMessage => ({
  messageId: `m-${randomUUID()}-${i}`,
  storeId,
  transmissionId: 'batch-1',
  kind: 'bulk',
  rcptTo: `r${i}@example.com`,
  msgFrom: 'news@shop.example',
  sentAt: 1_700_000_000_000 + i,
});

describe('DynamoDB sent messages', () => {
  it('records many messages in batch writes of 25 and reads each back', async () => {
    const sent = dynamoSentMessages();
    const messages = Array.from({ length: 60 }, (_, i) => message(i, 'store-a'));
    const before = calls('BatchWriteItem');
    await sent.record(messages);
    // Two items a message (the message, and the recipient's record of it): 120 items, 5 writes of at most 25.
    expect(calls('BatchWriteItem') - before).toBe(5);
    for (const m of [messages[0], messages[31], messages[59]]) {
      expect(await sent.get(m?.messageId ?? '')).toEqual(m);
    }
    expect(await sent.get('no-such-message')).toBeUndefined();
  });

  it('records a flow message with its flow id, and a repeat of the same record is harmless', async () => {
    const sent = dynamoSentMessages();
    const flowMessage: SentMessage = { ...message(1, 'store-b'), kind: 'flow', flowId: 'flow-7' };
    await sent.record([flowMessage]);
    await sent.record([flowMessage]);
    expect(await sent.get(flowMessage.messageId)).toEqual(flowMessage);
  });

  it('answers true for the first open of a message only, and false for an unknown message', async () => {
    const sent = dynamoSentMessages();
    const m = message(2, 'store-c');
    await sent.record([m]);
    const opens = await Promise.all([sent.firstOpen(m.messageId), sent.firstOpen(m.messageId)]);
    expect(opens.filter(Boolean)).toHaveLength(1);
    expect(await sent.firstOpen(m.messageId)).toBe(false);
    expect(await sent.get(m.messageId)).toEqual(m);
    expect(await sent.firstOpen('never-sent')).toBe(false);
    expect(await sent.get('never-sent')).toBeUndefined();
  });
});
