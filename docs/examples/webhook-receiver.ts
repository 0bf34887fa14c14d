/**
 * A Storeflow webhook receiver in plain Node (node:http, no framework): verify the signature over the raw body, then
 * dispatch by topic. Copy it into your project (types: `npm run openapi` generates them from the OpenAPI document).
 *
 *   STOREFLOW_API_KEY=shop_… PORT=8080 node docs/examples/webhook-receiver.ts
 *
 * The rules it follows (spec "Events", docs/webhooks.md):
 * - `X-Service-hmac-sha256` is the Base64 HMAC-SHA256 of the exact raw body, keyed with the store's API key. Verify
 *   the bytes as they arrived: parsing and re-serialising the JSON can change them.
 * - Compare in constant time (`timingSafeEqual`), so the comparison leaks nothing about the expected signature.
 * - Refuse replays: `X-Service-Timestamp` is the attempt's time (epoch seconds) and `X-Service-Timestamp-hmac-sha256`
 *   the same HMAC over `<timestamp>.<raw body>`; a request whose timestamp is more than five minutes from the
 *   receiver's clock is refused, so a captured request cannot be posted again later.
 * - Answer 200 only when the event is handled: any other status (or none within 10 s) is retried 5 times, after 5, 10,
 *   20, 40 and 80 seconds. `X-Service-Delivery-Id` stays the same across retries: use it to handle an event once.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { components } from '#shared/client/index.ts';

type Schemas = components['schemas'];

/** The body of each topic, as the OpenAPI document's `webhooks` describe it. */
export interface WebhookBodies {
  'bulk_operations/finish': Schemas['BulkOperationsFinish'];
  'customer/newsletter': Schemas['CustomerNewsletter'];
  'customer/marketing': Schemas['CustomerMarketingFormatOne'] | Schemas['CustomerMarketingFormatTwo'];
  'store/sending_paused': Schemas['StoreSendingPaused'];
  'transmission/callback':
    | Schemas['TransmissionCallbackDelivery']
    | Schemas['TransmissionCallbackBounce']
    | Schemas['TransmissionCallbackInitialOpen']
    | Schemas['TransmissionCallbackClick']
    | Schemas['TransmissionCallbackListUnsubscribe'];
}
export type WebhookTopic = keyof WebhookBodies;

/** True when `signature` (the `X-Service-hmac-sha256` header) was made with `apiKey` over exactly `rawBody`. */
export const verifyStoreflowSignature = (
  rawBody: Buffer | string,
  signature: string | undefined,
  apiKey: string,
): boolean => {
  if (!signature) return false;
  const expected = createHmac('sha256', apiKey).update(rawBody).digest();
  const given = Buffer.from(signature, 'base64');
  // timingSafeEqual throws on different lengths; a signature of the wrong length is simply wrong.
  return given.length === expected.length && timingSafeEqual(given, expected);
};

/**
 * True when the delivery is fresh: `X-Service-Timestamp-hmac-sha256` was made with `apiKey` over
 * `<timestamp>.<rawBody>`, and the timestamp is within `maxAgeSeconds` of `now` (epoch ms), either way.
 */
export const verifyStoreflowTimestamp = (
  rawBody: Buffer | string,
  timestamp: string | undefined,
  signature: string | undefined,
  apiKey: string,
  now: number,
  maxAgeSeconds = 300,
): boolean => {
  if (!timestamp || !/^\d{1,12}$/.test(timestamp)) return false;
  if (Math.abs(now / 1000 - Number(timestamp)) > maxAgeSeconds) return false;
  return verifyStoreflowSignature(
    Buffer.concat([Buffer.from(`${timestamp}.`), Buffer.from(rawBody)]),
    signature,
    apiKey,
  );
};

export interface Delivery {
  readonly webhookId: string;
  /** The same on every retry of one delivery: remember it to handle each event once. */
  readonly deliveryId: string;
}

export type Handlers = {
  readonly [T in WebhookTopic]?: (body: WebhookBodies[T], delivery: Delivery) => Promise<void> | void;
};

/** Bodies above this are refused before reading on (Storeflow's are a few kilobytes). */
const MAX_BODY_BYTES = 1024 * 1024;

const readRaw = (request: IncomingMessage): Promise<Buffer | undefined> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    request.on('end', () => resolve(size <= MAX_BODY_BYTES ? Buffer.concat(chunks) : undefined));
    request.on('error', reject);
  });

const header = (request: IncomingMessage, name: string): string | undefined => {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/**
 * An HTTP server that accepts Storeflow webhooks for one store: 401 for a missing or wrong signature or a stale
 * timestamp (a replay), 200 once the
 * topic's handler returned, 500 when it threw (Storeflow retries), 200 for a topic without a handler (nothing to do).
 */
export const createWebhookReceiver = (options: {
  apiKey: string;
  handlers: Handlers;
  /** The receiver's clock (epoch ms), for the freshness check. */
  now?: () => number;
}): Server =>
  createServer(async (request, response) => {
    if (request.method !== 'POST') return void response.writeHead(405).end();
    const raw = await readRaw(request);
    if (!raw) return void response.writeHead(413).end();
    if (!verifyStoreflowSignature(raw, header(request, 'x-service-hmac-sha256'), options.apiKey)) {
      return void response.writeHead(401).end();
    }
    const fresh = verifyStoreflowTimestamp(
      raw,
      header(request, 'x-service-timestamp'),
      header(request, 'x-service-timestamp-hmac-sha256'),
      options.apiKey,
      (options.now ?? Date.now)(),
    );
    if (!fresh) return void response.writeHead(401).end();
    const topic = header(request, 'x-service-topic') as WebhookTopic | undefined;
    const delivery = {
      webhookId: header(request, 'x-service-webhook-id') ?? '',
      deliveryId: header(request, 'x-service-delivery-id') ?? '',
    };
    const handle = topic ? options.handlers[topic] : undefined;
    try {
      // The signature proved the body is Storeflow's, byte for byte: now it may be parsed and trusted.
      if (handle)
        await (handle as (body: unknown, delivery: Delivery) => Promise<void> | void)(
          JSON.parse(raw.toString('utf8')),
          delivery,
        );
      response.writeHead(200).end();
    } catch (error) {
      console.error(`webhook ${topic} ${delivery.deliveryId} failed; Storeflow will retry`, error);
      response.writeHead(500).end();
    }
  });

// Run directly: log what arrives.
if (import.meta.main) {
  const apiKey = process.env.STOREFLOW_API_KEY;
  if (!apiKey) throw new Error('Set STOREFLOW_API_KEY to the store key the webhooks are signed with');
  const log = (topic: WebhookTopic) => (body: unknown, delivery: Delivery) =>
    console.log(topic, delivery.deliveryId, JSON.stringify(body));
  createWebhookReceiver({
    apiKey,
    handlers: {
      'bulk_operations/finish': log('bulk_operations/finish'),
      'customer/newsletter': log('customer/newsletter'),
      'customer/marketing': log('customer/marketing'),
      'transmission/callback': (body, delivery) => {
        // `eventType` tells the event data apart: delivery, bounce, initial_open, click, list_unsubscribe.
        console.log(`email ${body.eventType} for ${body.eventData.rcpt_to}`, delivery.deliveryId);
      },
    },
  }).listen(Number(process.env.PORT ?? 8080), () => console.log(`listening on ${process.env.PORT ?? 8080}`));
}
