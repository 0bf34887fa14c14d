/**
 * Email events as a merchant's receiver gets them (spec "Email events", topic `transmission/callback`), on the local
 * runtime: a mail the local SES accepts yields a `delivery` callback, and `POST /_local/email-events` simulates what
 * SES would report later (bounces, opens, clicks, complaints). Every callback is read off a real receiver, signed with
 * the store's key and carrying the batch id as `transmission_id`.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamo } from '#shared/adapters/aws-clients.ts';
import { dynamoSuppressions } from '#shared/adapters/dynamodb/email.repositories.ts';
import { keys } from '#shared/adapters/dynamodb/keys.ts';
import { tableName } from '#shared/adapters/dynamodb/table.ts';
import { GetCommand } from '#shared/adapters/dynamodb-client.ts';
import { eventually, newStore, type TestStore } from '#test/support/local.ts';
import { freshPath, type Receiver, startReceiver, subscribe } from '#test/support/webhooks.ts';
import {
  emailEventsSettled,
  epochSecondsSince,
  FROM,
  type SentMail,
  sendMail,
  signedBody,
  simulate,
  simulated,
} from './support.ts';

process.env.WEBHOOK_BACKOFF_BASE_SECONDS = '1';

/** The store's suppression record of the scenario's recipient, read straight from the table. */
const suppressionOf = async (s: { store: TestStore; mail: SentMail }) => {
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: tableName(), Key: keys.suppression(s.store.storeId, s.mail.rcptTo) }),
  );
  return Item;
};

let runtime: LocalRuntime;
let receiver: Receiver;

beforeAll(async () => {
  runtime = await startLocalRuntime({ logLevel: 'ERROR' });
  receiver = await startReceiver();
});

afterAll(async () => {
  await receiver?.close();
  await runtime?.stop();
});

interface Scenario {
  readonly store: TestStore;
  readonly path: string;
  readonly mail: SentMail;
  readonly sentAt: number;
}

/** A store subscribed to `transmission/callback`, and one mail it sent (its delivery callback already received). */
const sentAndDelivered = async (label: string): Promise<Scenario> => {
  const store = await newStore(`Email events ${label}`);
  const path = freshPath(label);
  await subscribe(runtime, store, 'transmission/callback', receiver.url(path));
  const sentAt = Date.now();
  const mail = await sendMail(store, `${label}-${Math.random().toString(36).slice(2, 8)}@example.com`);
  await callback({ store, path, mail, sentAt }, 'delivery');
  return { store, path, mail, sentAt };
};

/** Every callback received at the scenario's path so far, signature and headers checked. */
const callbacks = (s: Scenario) =>
  receiver.received(s.path).map((request) => signedBody(request, s.store, 'transmission/callback'));

/** Waits for the scenario's first callback of `eventType`. */
const callback = (s: Scenario, eventType: string) =>
  eventually(`a ${eventType} callback`, async () => callbacks(s).find((body) => body.eventType === eventType), 20_000);

describe('delivery', () => {
  it('reports each mail the local SES accepted as a signed delivery callback with the batch id', async () => {
    const s = await sentAndDelivered('delivery');
    expect(await callback(s, 'delivery')).toEqual({
      eventType: 'delivery',
      eventData: {
        reason: null,
        msg_from: FROM,
        rcpt_to: s.mail.rcptTo,
        error_code: null,
        transmission_id: s.mail.transmissionId,
        timestamp: epochSecondsSince(s.sentAt),
      },
    });
    const [request] = receiver.received(s.path);
    expect(request?.headers['x-service-webhook-id']).toEqual(expect.any(String));
  });
});

describe('bounces', () => {
  it('reports a hard bounce with the receiver’s reason and status, and suppresses the address for that store', async () => {
    const s = await sentAndDelivered('hard');
    const other = await newStore('Email events bystander');
    const diagnostic = 'smtp; 550 5.1.1 <nobody@example.com>: Recipient address rejected';
    await simulated(runtime, { messageId: s.mail.messageId, type: 'bounce', bounceType: 'Permanent', diagnostic });
    expect(await callback(s, 'bounce')).toEqual({
      eventType: 'bounce',
      eventData: {
        reason: diagnostic,
        msg_from: FROM,
        rcpt_to: s.mail.rcptTo,
        error_code: '5.1.1',
        transmission_id: s.mail.transmissionId,
        timestamp: epochSecondsSince(s.sentAt),
      },
    });
    const suppressions = dynamoSuppressions();
    await eventually('the address to be suppressed', async () =>
      (await suppressions.suppressedAmong(s.store.storeId, [s.mail.rcptTo])).has(s.mail.rcptTo) ? true : undefined,
    );
    expect(await suppressions.suppressedAmong(other.storeId, [s.mail.rcptTo])).toEqual(new Set());
  });

  it('reports a soft bounce and does not suppress the address', async () => {
    const s = await sentAndDelivered('soft');
    await simulated(runtime, { messageId: s.mail.messageId, type: 'bounce', bounceType: 'Transient' });
    expect(await callback(s, 'bounce')).toMatchObject({
      eventType: 'bounce',
      eventData: { rcpt_to: s.mail.rcptTo, error_code: '4.2.2', reason: expect.stringContaining('452') },
    });
    await emailEventsSettled(runtime);
    expect(await dynamoSuppressions().suppressedAmong(s.store.storeId, [s.mail.rcptTo])).toEqual(new Set());
  });
});

describe('opens and clicks', () => {
  it('reports the first open as initial_open and a second open not at all', async () => {
    const s = await sentAndDelivered('open');
    await simulated(runtime, { messageId: s.mail.messageId, type: 'open', userAgent: 'AppleMail/16.0' });
    expect(await callback(s, 'initial_open')).toEqual({
      eventType: 'initial_open',
      eventData: {
        msg_from: FROM,
        rcpt_to: s.mail.rcptTo,
        transmission_id: s.mail.transmissionId,
        user_agent: 'AppleMail/16.0',
        timestamp: epochSecondsSince(s.sentAt),
      },
    });
    await simulated(runtime, { messageId: s.mail.messageId, type: 'open', userAgent: 'Thunderbird/128' });
    await emailEventsSettled(runtime);
    expect(callbacks(s).map((body) => body.eventType)).toEqual(['delivery', 'initial_open']);
  });

  it('reports a click with the target link', async () => {
    const s = await sentAndDelivered('click');
    const link = 'https://shop.example/sale?utm_source=mail';
    await simulated(runtime, { messageId: s.mail.messageId, type: 'click', link, userAgent: 'Mozilla/5.0 (Phone)' });
    expect(await callback(s, 'click')).toEqual({
      eventType: 'click',
      eventData: {
        msg_from: FROM,
        rcpt_to: s.mail.rcptTo,
        target_link_url: link,
        transmission_id: s.mail.transmissionId,
        user_agent: 'Mozilla/5.0 (Phone)',
        timestamp: epochSecondsSince(s.sentAt),
      },
    });
  });
});

describe('complaints and list opt-outs', () => {
  it.each([
    ['complaint', 'complaint'],
    ['unsubscribe', 'unsubscribed'],
  ])('reports a simulated %s as list_unsubscribe and suppresses the address (%s)', async (type, reason) => {
    const s = await sentAndDelivered(type);
    await simulated(runtime, { messageId: s.mail.messageId, type });
    expect(await callback(s, 'list_unsubscribe')).toEqual({
      eventType: 'list_unsubscribe',
      eventData: { rcpt_to: s.mail.rcptTo, transmission_id: s.mail.transmissionId },
    });
    const suppression = await eventually('the suppression', () => suppressionOf(s));
    expect(suppression).toMatchObject({ reason, transmissionId: s.mail.transmissionId });
  });
});

describe('POST /_local/email-events', () => {
  it('answers 404 for a message id the service never sent', async () => {
    const answer = await simulate(runtime, { messageId: '0100018f-not-a-real-message-000000', type: 'open' });
    expect(answer.status).toBe(404);
    expect(answer.body.message).toEqual(expect.stringContaining('0100018f-not-a-real-message-000000'));
  });

  it.each([
    ['no message id', { type: 'open' }],
    ['an unknown type', { messageId: 'm', type: 'teleport' }],
    ['a click without a link', { messageId: 'm', type: 'click' }],
    ['a click on a non-http link', { messageId: 'm', type: 'click', link: 'javascript:alert(1)' }],
    ['a bounce type SES does not have', { messageId: 'm', type: 'bounce', bounceType: 'Soft' }],
    ['a body that is not a JSON object', '[1,2]'],
    ['malformed JSON', '{"messageId":'],
  ])('answers 400 to %s, naming the rule', async (_, body) => {
    const answer = await simulate(runtime, body);
    expect(answer.status).toBe(400);
    expect(answer.body.message).toEqual(expect.any(String));
  });
});
