/**
 * The documented webhook receiver (docs/examples/webhook-receiver.ts) against real signed deliveries of the local
 * runtime: it verifies and dispatches what the service sends, and refuses what it did not sign.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createWebhookReceiver,
  type Delivery,
  verifyStoreflowSignature,
  verifyStoreflowTimestamp,
  type WebhookBodies,
} from '#docs/examples/webhook-receiver.ts';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { apiClient } from '#test/support/api-client.ts';
import { eventually, newStore, type TestStore } from '#test/support/local.ts';
import { awaitDelivery, type Receiver, startReceiver, subscribe } from '#test/support/webhooks.ts';

let runtime: LocalRuntime;
let store: TestStore;
let example: Server;
let exampleUrl: string;
const newsletters: { body: WebhookBodies['customer/newsletter']; delivery: Delivery }[] = [];

beforeAll(async () => {
  runtime = await startLocalRuntime();
  store = await newStore('Receiver Example Shop');
  example = createWebhookReceiver({
    apiKey: store.apiKey,
    handlers: { 'customer/newsletter': (body, delivery) => void newsletters.push({ body, delivery }) },
  });
  await new Promise<void>((resolve) => example.listen(0, '127.0.0.1', resolve));
  exampleUrl = `http://127.0.0.1:${(example.address() as AddressInfo).port}/hooks`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => (example ? example.close(() => resolve()) : resolve()));
  await runtime?.stop();
});

const subscriber = (id: string) => ({
  endpoint: 'customers/create' as const,
  source_id: `src-${id}`,
  data: { id, created_at: 1_700_000_000, email: `${id}@example.com` },
});

describe('the example webhook receiver', () => {
  it('accepts a real signed delivery and hands the parsed body to the topic handler', async () => {
    const webhook = await subscribe(runtime, store, 'customer/newsletter', exampleUrl);
    const sent = await apiClient(runtime, store.apiKey).POST('/api/v1/headless/events', { body: subscriber('ada') });
    expect(sent.data).toEqual({ success: true });

    const [got] = await eventually('the newsletter webhook to reach the handler', async () =>
      newsletters.length > 0 ? newsletters : undefined,
    );
    expect(got?.body).toMatchObject({ id: 'ada', email: 'ada@example.com', source: 'customer/newsletter' });
    expect(got?.delivery.webhookId).toBe(webhook.id);
    const delivery = await awaitDelivery(runtime, store, webhook.id, (d) => d.status === 'delivered');
    expect(got?.delivery.deliveryId).toBe(delivery.id);
    expect(delivery.attempts).toHaveLength(1);
  });

  describe('with the raw delivery captured', () => {
    let capture: Receiver;
    let raw: Buffer;
    let headers: Record<string, string>;
    let sender: TestStore;

    beforeAll(async () => {
      capture = await startReceiver();
      sender = await newStore('Capture Shop');
      await subscribe(runtime, sender, 'customer/newsletter', capture.url('/raw'));
      await apiClient(runtime, sender.apiKey).POST('/api/v1/headless/events', { body: subscriber('grace') });
      const [request] = await capture.waitFor('/raw', 1);
      if (!request) throw new Error('no delivery captured');
      raw = request.raw;
      headers = Object.fromEntries(
        Object.entries(request.headers).filter((e): e is [string, string] => typeof e[1] === 'string'),
      );
    });

    afterAll(async () => {
      await capture?.close();
    });

    it("verifies the service's signature with the store key, and with no other key", () => {
      expect(verifyStoreflowSignature(raw, headers['x-service-hmac-sha256'], sender.apiKey)).toBe(true);
      expect(verifyStoreflowSignature(raw.toString('utf8'), headers['x-service-hmac-sha256'], sender.apiKey)).toBe(
        true,
      );
      expect(verifyStoreflowSignature(raw, headers['x-service-hmac-sha256'], store.apiKey)).toBe(false);
      expect(verifyStoreflowSignature(raw, headers['x-service-hmac-sha256'], `shop_${'x'.repeat(40)}`)).toBe(false);
      expect(verifyStoreflowSignature(raw, undefined, sender.apiKey)).toBe(false);
      expect(verifyStoreflowSignature(raw, 'c2hvcnQ=', sender.apiKey)).toBe(false);
      const [timestamp, timestamped] = [headers['x-service-timestamp'], headers['x-service-timestamp-hmac-sha256']];
      const sentAt = Number(timestamp) * 1000;
      expect(verifyStoreflowTimestamp(raw, timestamp, timestamped, sender.apiKey, sentAt + 60_000)).toBe(true);
      expect(verifyStoreflowTimestamp(raw, timestamp, timestamped, sender.apiKey, sentAt + 301_000)).toBe(false);
      expect(verifyStoreflowTimestamp(raw, String(Number(timestamp) + 1), timestamped, sender.apiKey, sentAt)).toBe(
        false,
      );
    });

    it('refuses a changed body, a re-serialised body, a missing signature and a replay with 401', async () => {
      let clock = Date.now();
      const receiver = createWebhookReceiver({ apiKey: sender.apiKey, handlers: {}, now: () => clock });
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`;
      try {
        const post = (body: string | Buffer, signature?: string) =>
          fetch(url, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              'x-service-topic': 'customer/newsletter',
              'x-service-timestamp': headers['x-service-timestamp'] ?? '',
              'x-service-timestamp-hmac-sha256': headers['x-service-timestamp-hmac-sha256'] ?? '',
              ...(signature ? { 'x-service-hmac-sha256': signature } : {}),
            },
            body,
          });
        const signature = headers['x-service-hmac-sha256'];
        expect((await post(raw, signature)).status).toBe(200);
        const tampered = raw.toString('utf8').replace('grace@example.com', 'mallory@example.com');
        expect((await post(tampered, signature)).status).toBe(401);
        const reserialised = JSON.stringify(JSON.parse(raw.toString('utf8')), null, 2);
        expect((await post(reserialised, signature)).status).toBe(401);
        expect((await post(raw)).status).toBe(401);
        // The same captured request posted again ten minutes later: the body's signature still holds, the time not.
        clock += 10 * 60_000;
        expect((await post(raw, signature)).status).toBe(401);
      } finally {
        await new Promise<void>((resolve) => receiver.close(() => resolve()));
      }
    });
  });
});
