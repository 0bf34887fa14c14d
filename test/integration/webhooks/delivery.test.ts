/**
 * Webhook delivery end to end (spec "Events": "Delivery headers", "Delivery and retry"; "Authentication" rule 5): a
 * real local receiver gets the signed POSTs of the local runtime's delivery worker. With the backoff base at 1 s the
 * spec's ladder (5, 10, 20, 40, 80 s) runs as 1, 2, 4, 8, 16 s; independent scenarios run concurrently, each with its
 * own store and receiver path, so the whole file takes about as long as its longest scenario.
 */
import { createHmac } from 'node:crypto';
import { DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamoDeliveryRepository } from '#shared/adapters/dynamodb/webhook.repositories.ts';
import { acceptedHeadless, sourceId, uid } from '#test/support/harness.ts';
import { eventually, newStore, type TestStore } from '#test/support/local.ts';
import {
  api,
  awaitDelivery,
  deliveriesOf,
  freshPath,
  type ReceivedRequest,
  type Receiver,
  type Scripted,
  sleep,
  sqs,
  startReceiver,
  subscribe,
  type WebhookRecord,
} from '#test/support/webhooks.ts';

// Read once per process, at the first use of the configuration: set before the runtime starts.
process.env.WEBHOOK_BACKOFF_BASE_SECONDS = '1';
process.env.WEBHOOK_TIMEOUT_SECONDS = '2';

let runtime: LocalRuntime;
let receiver: Receiver;
const deliveries = dynamoDeliveryRepository();

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
  readonly webhook: WebhookRecord;
  readonly customerId: string;
}

/** A store subscribed to `customer/newsletter` at a fresh receiver path answering `answers`, then 200. */
const scenario = async (name: string, answers: readonly Scripted[], then: Scripted = 200): Promise<Scenario> => {
  const store = await newStore(`Delivery ${name}`);
  const path = freshPath(name);
  receiver.script(path, answers, then);
  const webhook = await subscribe(runtime, store, 'customer/newsletter', receiver.url(path));
  return { store, path, webhook, customerId: uid('cust') };
};

/** A form subscription (headless `customers/create`): emits `customer/newsletter`. */
const collectSubscriber = (s: Scenario) =>
  acceptedHeadless(
    runtime,
    s.store,
    'customers/create',
    {
      id: s.customerId,
      created_at: 1_700_000_000,
      email: `${s.customerId}@example.com`,
      first_name: 'Zoë',
      last_name: 'Ångström',
      country_code: 'se',
    },
    sourceId('dl'),
  );

const gapsOf = (requests: readonly ReceivedRequest[]) => requests.slice(1).map((r, i) => r.at - (requests[i]?.at ?? 0));

const hmac = (raw: Buffer, key: string) => createHmac('sha256', key).update(raw).digest('base64');

/** Reads the webhook DLQ until it holds the message of `deliveryId` (and removes it). */
const dlqMessageOf = (deliveryId: string) =>
  eventually(
    `the message of ${deliveryId} in the webhooks DLQ`,
    async () => {
      const { Messages = [] } = await sqs().send(
        new ReceiveMessageCommand({
          QueueUrl: runtime.dlqUrls.webhooks,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 1,
          VisibilityTimeout: 1,
        }),
      );
      const found = Messages.find((m) => JSON.parse(m.Body ?? '{}').deliveryId === deliveryId);
      if (found) {
        await sqs().send(
          new DeleteMessageCommand({ QueueUrl: runtime.dlqUrls.webhooks, ReceiptHandle: found.ReceiptHandle }),
        );
      }
      return found;
    },
    10_000,
  );

describe.concurrent('delivery worker', () => {
  it('gives up after exactly 6 attempts: the delivery is failed, the message in the DLQ; re-sending delivers it', async () => {
    const s = await scenario('never-200', [], 503);
    await collectSubscriber(s);
    const requests = await receiver.waitFor(s.path, 6, 45_000);
    const failed = await awaitDelivery(runtime, s.store, s.webhook.id, (d) => d.status === 'failed', 10_000);
    expect(failed.attempts).toHaveLength(6);
    expect(failed.attempts.map((a) => a.statusCode)).toEqual([503, 503, 503, 503, 503, 503]);
    expect(failed.attempts.every((a) => a.outcome === 'rejected')).toBe(true);
    expect(failed.reason).toEqual(expect.any(String));

    const message = await dlqMessageOf(failed.id);
    expect(JSON.parse(message.Body ?? '{}')).toMatchObject({ storeId: s.store.storeId, deliveryId: failed.id });
    // The ladder: 1, 2, 4, 8, 16 s between the six attempts.
    gapsOf(requests).forEach((gap, i) => {
      expect(gap, `gap ${i + 1}`).toBeGreaterThanOrEqual(1000 * 2 ** i - 100);
      expect(gap, `gap ${i + 1}`).toBeLessThan(1000 * 2 ** i + 1500);
    });
    // No seventh attempt: the ladder ended.
    await sleep(1500);
    expect(receiver.received(s.path)).toHaveLength(6);

    receiver.script(s.path, [], 200);
    const retry = await api(runtime, s.store.apiKey, 'POST', `/api/v1/webhooks/deliveries/${failed.id}/retry`);
    expect(retry.status).toBe(200);
    expect(retry.body).toMatchObject({ code: 200, data: { id: failed.id, status: 'pending' } });
    const delivered = await awaitDelivery(runtime, s.store, s.webhook.id, (d) => d.status === 'delivered');
    expect(delivered.attempts).toHaveLength(7);
    expect(delivered.attempts.at(-1)).toMatchObject({ statusCode: 200, outcome: 'delivered' });
    const all = receiver.received(s.path);
    expect(all).toHaveLength(7);
    // The re-sent delivery is the same one: same id, same bytes, same signature.
    expect(all[6]?.headers['x-service-delivery-id']).toBe(failed.id);
    expect(all[6]?.headers['x-service-hmac-sha256']).toBe(all[0]?.headers['x-service-hmac-sha256']);
    expect(all[6]?.raw.equals(all[0]?.raw ?? Buffer.alloc(0))).toBe(true);
  }, 70_000);

  it('retries a 500 with the backoff ladder 1:2:4:8 and delivers on the 5th attempt', async () => {
    const s = await scenario('ladder', [500, 500, 500, 500]);
    await collectSubscriber(s);
    const requests = await receiver.waitFor(s.path, 5, 30_000);
    const delivery = await awaitDelivery(runtime, s.store, s.webhook.id, (d) => d.status === 'delivered');

    const gaps = gapsOf(requests);
    const nominal = [1000, 2000, 4000, 8000];
    gaps.forEach((gap, i) => {
      expect(gap, `gap ${i + 1}`).toBeGreaterThanOrEqual((nominal[i] ?? 0) - 100);
      expect(gap, `gap ${i + 1}`).toBeLessThan((nominal[i] ?? 0) + 1500);
    });
    for (let i = 1; i < gaps.length; i++) {
      const ratio = (gaps[i] ?? 0) / (gaps[i - 1] ?? 1);
      expect(ratio, `gap ${i + 1} / gap ${i}`).toBeGreaterThan(1.5);
      expect(ratio, `gap ${i + 1} / gap ${i}`).toBeLessThan(2.5);
    }

    expect(delivery.status).toBe('delivered');
    expect(delivery.attempts.map((a) => a.statusCode)).toEqual([500, 500, 500, 500, 200]);
    expect(delivery.attempts.map((a) => a.outcome)).toEqual([
      'rejected',
      'rejected',
      'rejected',
      'rejected',
      'delivered',
    ]);
    expect(receiver.received(s.path)).toHaveLength(5);
    // Every retry is the same delivery: same id, same bytes, same signature.
    const ids = new Set(requests.map((r) => r.headers['x-service-delivery-id']));
    expect(ids).toEqual(new Set([delivery.id]));
    for (const request of requests) {
      expect(request.raw.equals(requests[0]?.raw ?? Buffer.alloc(0))).toBe(true);
      expect(request.headers['x-service-hmac-sha256']).toBe(hmac(request.raw, s.store.apiKey));
    }
  }, 60_000);

  it('POSTs the signed newsletter body with the topic, webhook id and delivery id headers', async () => {
    const s = await scenario('signed', []);
    await collectSubscriber(s);
    const [request] = await receiver.waitFor(s.path, 1);
    if (!request) throw new Error('no request');
    const delivery = await awaitDelivery(runtime, s.store, s.webhook.id, (d) => d.status === 'delivered');

    expect(request.method).toBe('POST');
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['x-service-hmac-sha256']).toBe(hmac(request.raw, s.store.apiKey));
    expect(request.headers['x-service-hmac-sha256']).not.toBe(hmac(request.raw, `${s.store.apiKey}x`));
    expect(request.headers['x-service-topic']).toBe('customer/newsletter');
    expect(request.headers['x-service-webhook-id']).toBe(s.webhook.id);
    expect(request.headers['x-service-delivery-id']).toBe(delivery.id);

    const body = JSON.parse(request.raw.toString('utf8'));
    expect(body).toEqual({
      id: s.customerId,
      email: `${s.customerId}@example.com`,
      phone: '',
      first_name: 'Zoë',
      last_name: 'Ångström',
      city: '',
      gender: '',
      birthdate: '',
      country_code: 'SE',
      created_at: 1_700_000_000,
      source: 'customer/newsletter',
      email_marketing_consent: { state: 'subscribed', updated_at: expect.any(Number) },
      sms_marketing_consent: { state: 'undefined' },
    });

    expect(delivery).toMatchObject({
      webhookId: s.webhook.id,
      topic: 'customer/newsletter',
      url: receiver.url(s.path),
      status: 'delivered',
    });
    expect(delivery.attempts).toHaveLength(1);
    expect(delivery.attempts[0]).toMatchObject({
      statusCode: 200,
      outcome: 'delivered',
      responseExcerpt: 'answer 200',
    });
    expect(Object.keys(delivery).sort()).toEqual(
      ['attempts', 'createdAt', 'id', 'status', 'topic', 'updatedAt', 'url', 'webhookId'].sort(),
    );
    // Times in epoch milliseconds: the attempt happened after the event and within the test.
    expect(delivery.attempts[0]?.at).toBeGreaterThanOrEqual(delivery.createdAt);
    expect(delivery.attempts[0]?.at).toBeLessThanOrEqual(Date.now());
    expect(delivery.createdAt).toBeGreaterThan(Date.now() - 60_000);
    expect(delivery.updatedAt).toBeGreaterThanOrEqual(delivery.attempts[0]?.at ?? 0);
  });

  it('retries a receiver that answers 201 (only 200 accepts)', async () => {
    const s = await scenario('created-201', [201]);
    await collectSubscriber(s);
    await receiver.waitFor(s.path, 2, 10_000);
    const delivery = await awaitDelivery(runtime, s.store, s.webhook.id, (d) => d.status === 'delivered');
    expect(delivery.attempts.map((a) => [a.statusCode, a.outcome])).toEqual([
      [201, 'rejected'],
      [200, 'delivered'],
    ]);
    expect(delivery.attempts[0]?.responseExcerpt).toBe('answer 201');
  });

  it('stops a delivery waiting for its retry when the webhook is deleted: no further attempt, status cancelled', async () => {
    const s = await scenario('deleted', [], 500);
    await collectSubscriber(s);
    // After the second attempt the delivery waits 2 s for the third: delete the webhook meanwhile.
    await receiver.waitFor(s.path, 2, 10_000);
    const waiting = await eventually('the second attempt recorded', async () => {
      const [d] = await deliveriesOf(runtime, s.store, s.webhook.id);
      return d && d.attempts.length >= 2 ? d : undefined;
    });
    expect(waiting.status).toBe('pending');
    // A delivery still on its ladder cannot be re-sent.
    const early = await api(runtime, s.store.apiKey, 'POST', `/api/v1/webhooks/deliveries/${waiting.id}/retry`);
    expect(early.status).toBe(409);
    expect(early.body).toEqual({ code: 409, message: expect.any(String) });
    const removed = await api(runtime, s.store.apiKey, 'DELETE', `/api/v1/webhooks/${s.webhook.id}`);
    expect(removed.body).toEqual({ code: 200, data: true });

    // The webhook is gone; its deliveries stay listed under its id, the waiting one cancelled.
    const cancelled = await awaitDelivery(runtime, s.store, s.webhook.id, (d) => d.status !== 'pending', 10_000);
    expect(cancelled.status).toBe('cancelled');
    expect((await deliveries.get(s.store.storeId, waiting.id))?.status).toBe('cancelled');
    expect(cancelled.attempts).toHaveLength(2);
    await sleep(1500);
    expect(receiver.received(s.path)).toHaveLength(2);

    // Re-sending needs a subscription for the topic; with a new one it goes to the new url.
    const orphan = await api(runtime, s.store.apiKey, 'POST', `/api/v1/webhooks/deliveries/${waiting.id}/retry`);
    expect(orphan.status).toBe(409);
    const newPath = freshPath('deleted-new');
    const replacement = await subscribe(runtime, s.store, 'customer/newsletter', receiver.url(newPath));
    const retry = await api(runtime, s.store.apiKey, 'POST', `/api/v1/webhooks/deliveries/${waiting.id}/retry`);
    expect(retry.status).toBe(200);
    const delivered = await awaitDelivery(runtime, s.store, replacement.id, (d) => d.status === 'delivered');
    expect(delivered).toMatchObject({ id: waiting.id, url: receiver.url(newPath) });
    expect(receiver.received(newPath)).toHaveLength(1);
    expect(receiver.received(newPath)[0]?.headers['x-service-webhook-id']).toBe(replacement.id);
    expect(receiver.received(s.path)).toHaveLength(2);
  }, 30_000);

  it('stops a delivery waiting for its retry when the url changes (PUT): nothing more to the old url', async () => {
    const s = await scenario('moved', [], 500);
    const newPath = freshPath('moved-new');
    await collectSubscriber(s);
    await receiver.waitFor(s.path, 2, 10_000);
    await eventually('the second attempt recorded', async () => {
      const [d] = await deliveriesOf(runtime, s.store, s.webhook.id);
      return d && d.attempts.length >= 2 ? d : undefined;
    });
    const moved = await api(runtime, s.store.apiKey, 'PUT', '/api/v1/webhooks', {
      topic: 'customer/newsletter',
      url: receiver.url(newPath),
    });
    expect(moved.status).toBe(200);
    const cancelled = await awaitDelivery(runtime, s.store, s.webhook.id, (d) => d.status !== 'pending', 10_000);
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.reason).toEqual(expect.any(String));
    expect(cancelled.attempts).toHaveLength(2);
    await sleep(1000);
    expect(receiver.received(s.path)).toHaveLength(2);
    expect(receiver.received(newPath)).toHaveLength(0);

    // A cancelled delivery can be re-sent: it goes to the new url.
    const retry = await api(runtime, s.store.apiKey, 'POST', `/api/v1/webhooks/deliveries/${cancelled.id}/retry`);
    expect(retry.status).toBe(200);
    const delivered = await awaitDelivery(runtime, s.store, s.webhook.id, (d) => d.status === 'delivered');
    expect(delivered.url).toBe(receiver.url(newPath));
    const [resent] = await receiver.waitFor(newPath, 1);
    expect(resent?.raw.equals(receiver.received(s.path)[0]?.raw ?? Buffer.alloc(0))).toBe(true);
    expect(receiver.received(s.path)).toHaveLength(2);
  }, 30_000);
});

describe('delivery timeout', () => {
  it('counts a receiver that does not answer within WEBHOOK_TIMEOUT_SECONDS as a failed attempt (timeout)', async () => {
    const s = await scenario('hangs', ['hang']);
    await collectSubscriber(s);
    const requests = await receiver.waitFor(s.path, 2, 15_000);
    const delivery = await awaitDelivery(runtime, s.store, s.webhook.id, (d) => d.status === 'delivered');
    expect(delivery.attempts).toHaveLength(2);
    const [first, second] = delivery.attempts;
    expect(first).toMatchObject({ outcome: 'timeout' });
    expect(first?.statusCode).toBeUndefined();
    expect(first?.latencyMs).toBeGreaterThanOrEqual(1900);
    expect(first?.latencyMs).toBeLessThan(3500);
    expect(second).toMatchObject({ statusCode: 200, outcome: 'delivered' });
    // The retry came after the timeout plus the first rung (1 s).
    expect(gapsOf(requests)[0]).toBeGreaterThanOrEqual(2900);
  }, 20_000);
});
