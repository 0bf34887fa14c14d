/**
 * Helpers of the conformance suite: the local runtime, calls to both event interfaces, and the barriers that tell when
 * an accepted event (or a fired timer) has been applied, so that "no flow" can be asserted and not merely hoped for.
 */
import { GetScheduleCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { expect } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { listFlowTriggers } from '#shared/adapters/dynamodb/engagement.repositories.ts';
import { dynamoEventHistory } from '#shared/adapters/dynamodb/event-history.repository.ts';
import { dynamoDeliveryRepository, dynamoWebhookRepository } from '#shared/adapters/dynamodb/webhook.repositories.ts';
import type { FlowKind, FlowTrigger } from '#shared/domain/flows/trigger.ts';
import type { PageView } from '#shared/domain/page-views/model.ts';
import { readPageViews } from '#shared/domain/page-views/read.ts';
import { timerName } from '#shared/domain/timers/model.ts';
import type { Delivery } from '#shared/domain/webhooks/delivery.ts';
import type { WebhookTopic } from '#shared/domain/webhooks/topics.ts';
import type { Webhook } from '#shared/domain/webhooks/webhook.ts';
import { processWide } from '#shared/lazy.ts';
import { type Answer, eventually, newStore, postEvent, queueIsEmpty, type TestStore } from './local.ts';

export { eventually, newStore, type TestStore };

export const startRuntime = (): Promise<LocalRuntime> => startLocalRuntime({ logLevel: 'ERROR' });

let sequence = 0;
/** A source_id no other request of the file uses (at most 50 characters). */
export const sourceId = (prefix = 'src'): string => `${prefix}-${++sequence}-${Date.now().toString(36)}`.slice(0, 50);

/** An id unique within the file, for customers, products, orders, carts. */
export const uid = (prefix: string): string => `${prefix}-${++sequence}-${Math.random().toString(36).slice(2, 8)}`;

/** `POST {base_url}/api/v1/events`. */
export const general = (
  runtime: LocalRuntime,
  apiKey: string | undefined,
  body: unknown,
  options: { contentType?: string } = {},
): Promise<Answer> => postEvent(runtime.urls.main, apiKey, body, options);

/** `POST {front_url}/api/v1/headless/events`; `body` is sent as is when it is a string. */
export const headless = async (
  runtime: LocalRuntime,
  apiKey: string | undefined,
  body: unknown,
  options: { contentType?: string } = {},
): Promise<Answer> => {
  const headers: Record<string, string> = { 'content-type': options.contentType ?? 'application/json' };
  if (apiKey !== undefined) headers['x-service-access-token'] = apiKey;
  const response = await fetch(`${runtime.urls.front}/api/v1/headless/events`, {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: JSON.parse(text) as Record<string, unknown> };
};

/** Sends a general event and asserts the `200 ok` answer. */
export const acceptedGeneral = async (
  runtime: LocalRuntime,
  store: TestStore,
  endpoint: string,
  data: Record<string, unknown>,
  source_id = sourceId(),
): Promise<string> => {
  const answer = await general(runtime, store.apiKey, { endpoint, source_id, data });
  expect(answer.body, `${endpoint} ${JSON.stringify(data)}`).toEqual({ code: 200, message: 'ok' });
  expect(answer.status).toBe(200);
  return source_id;
};

/** Sends a headless event and asserts `{success: true}`. */
export const acceptedHeadless = async (
  runtime: LocalRuntime,
  store: TestStore,
  endpoint: string,
  data: Record<string, unknown>,
  source_id = sourceId(),
): Promise<string> => {
  const answer = await headless(runtime, store.apiKey, { endpoint, source_id, data });
  expect(answer.body, `${endpoint} ${JSON.stringify(data)}`).toEqual({ success: true });
  expect(answer.status).toBe(200);
  return source_id;
};

// Made on first use after each runtime start: the runtime sets the endpoints and the region in process.env.
const scheduler = processWide(() => new SchedulerClient({}));

/**
 * Waits until the queue holds no message, visible or in flight: every accepted event (ingest) or fired timer
 * (timers) has been applied, since a poller deletes a message only after its handler returned. Tests of one file run
 * one after the other, so the queue holds only the current test's messages.
 */
export const drained = async (runtime: LocalRuntime, queue: 'ingest' | 'timers' = 'ingest'): Promise<void> => {
  let emptyReadings = 0;
  await eventually(`the ${queue} queue to drain`, async () => {
    emptyReadings = (await queueIsEmpty(runtime.queueUrls[queue])) ? emptyReadings + 1 : 0;
    return emptyReadings >= 2 ? true : undefined;
  });
};

export const triggersOf = (storeId: string): Promise<FlowTrigger[]> => listFlowTriggers(storeId);

/**
 * Subscribes the store to `topic` with the subscription the management interface writes (through the repository), at a
 * loopback port nothing listens on: the tests using it read the delivery records the emitter wrote, not a receiver.
 */
export const subscribedTo = async (storeId: string, topic: WebhookTopic): Promise<Webhook> => {
  const now = Date.now();
  const webhook: Webhook = {
    storeId,
    id: `wh_${uid('t').replace(/[^A-Za-z0-9]/g, '')}`,
    topic,
    url: `http://127.0.0.1:9/${topic}`,
    format: 'json',
    createdAt: Math.floor(now / 1000),
    updatedAt: now,
  };
  await dynamoWebhookRepository().put(webhook);
  return webhook;
};

/** The subscription's delivery records (one per emitted event), their bodies parsed. */
export const deliveryRecordsOf = async (
  webhook: Webhook,
): Promise<Array<Omit<Delivery, 'body'> & { body: Record<string, unknown> }>> => {
  const { items } = await dynamoDeliveryRepository().listForWebhook(webhook.storeId, webhook.id, { limit: 100 });
  return items.map((delivery) => ({ ...delivery, body: JSON.parse(delivery.body) as Record<string, unknown> }));
};

const DAY_MS = 86_400_000;
/** The contact's page views the store's event history keeps (accepted since yesterday: this run's). */
export const pageViewsOf = (storeId: string, contactKey: string): Promise<PageView[]> =>
  readPageViews(dynamoEventHistory(), storeId, contactKey, Date.now() - DAY_MS, Date.now() + DAY_MS);

/** Waits for `count` triggers (of `kind`, when given) in the store and returns them. */
export const awaitTriggers = (storeId: string, count: number, kind?: FlowKind): Promise<FlowTrigger[]> =>
  eventually(`${count} ${kind ?? ''} trigger(s) in ${storeId}`, async () => {
    const found = (await triggersOf(storeId)).filter((t) => kind === undefined || t.kind === kind);
    return found.length >= count ? found : undefined;
  });

/** Asserts that every event sent so far has been applied and that the store recorded no flow trigger. */
export const expectNoTrigger = async (runtime: LocalRuntime, storeId: string): Promise<void> => {
  await drained(runtime, 'ingest');
  expect(await triggersOf(storeId)).toEqual([]);
};

/** Polls until `probe` holds (returns a value other than `undefined`/`false`). */
export const until = <T>(what: string, probe: () => Promise<T | undefined | false>): Promise<T> =>
  eventually(what, async () => {
    const value = await probe();
    return value === false ? undefined : value;
  });

/** The Scheduler schedule behind a cart or checkout timer, or `undefined` once it fired (or never existed). */
export const timerSchedule = async (kind: 'cart' | 'checkout', storeId: string, token: string) => {
  try {
    return await scheduler().send(
      new GetScheduleCommand({ Name: timerName(kind, storeId, token), GroupName: 'default' }),
    );
  } catch (error) {
    if (error instanceof Error && error.name === 'ResourceNotFoundException') return undefined;
    throw error;
  }
};

/** Epoch ms of an `at(yyyy-mm-ddThh:mm:ss)` expression (UTC). */
export const atMs = (expression: string | undefined): number => {
  const match = /^at\((.+)\)$/.exec(expression ?? '');
  if (!match?.[1]) throw new Error(`not an at() expression: ${expression}`);
  return Date.parse(`${match[1]}Z`);
};

/** Advances the timers' clock so that its offset is at least `seconds` (the offset only grows). */
export const advanceTo = async (runtime: LocalRuntime, seconds: number) => {
  const missing = seconds - runtime.clock.offsetMs / 1000;
  return runtime.advanceClock(Math.max(0, missing));
};

// ---- Valid payloads, as a merchant's integration sends them -------------------------------------------------------

export const customerData = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  email: `${id}@example.com`,
  created_at: 1_700_000_000,
  first_name: 'Ada',
  ...extra,
});

export const productData = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  title: 'Desk lamp',
  src: 'https://shop.example/lamp.jpg',
  purchase_url: `https://shop.example/products/${id}`,
  variants: [{ id: `${id}-v1`, sku: 'LAMP-1', price: '19.90', inventory_quantity: 5, option1: 'Black' }],
  ...extra,
});

export const orderLine = (extra: Record<string, unknown> = {}) => ({
  id: 'line-1',
  product_id: 'p-1',
  variant_id: 'p-1-v1',
  title: 'Desk lamp',
  quantity: 1,
  price: '19.90',
  ...extra,
});

export const trackedLine = (extra: Record<string, unknown> = {}) =>
  orderLine({
    tracking_company: 'UPS',
    tracking_number: '1Z999',
    tracking_url: 'https://ups.example/track/1Z999',
    ...extra,
  });

export const orderData = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  customer_id: 'cust-1',
  email: 'buyer@example.com',
  name: `#${id}`,
  order_status: 'pending',
  total_price: '19.90',
  currency: 'USD',
  line_items: [orderLine()],
  ...extra,
});

export const cartLine = (productId: string, extra: Record<string, unknown> = {}) => ({
  product_id: productId,
  variant_id: `${productId}-v1`,
  title: `Product ${productId}`,
  quantity: 1,
  price: '10.00',
  ...extra,
});

export const cartData = (token: string, extra: Record<string, unknown> = {}) => ({
  token,
  email: 'shopper@example.com',
  checkout_url: `https://shop.example/cart/${token}`,
  line_items: [cartLine('p-1')],
  ...extra,
});

export const checkoutData = (token: string, extra: Record<string, unknown> = {}) => ({
  token,
  email: 'shopper@example.com',
  total_price: '10.00',
  currency: 'USD',
  abandoned_checkout_url: `https://shop.example/checkouts/${token}/recover`,
  line_items: [cartLine('p-1')],
  ...extra,
});

export const headlessCartData = (token: string, extra: Record<string, unknown> = {}) => ({
  token,
  checkout_url: `https://shop.example/cart/${token}`,
  timestamp: 1_700_000_000,
  line_items: [{ title: 'Desk lamp', quantity: 1, price: '19.90', product_id: 'p-1', sku: 'LAMP-1' }],
  ...extra,
});

export const headlessPageView = (extra: Record<string, unknown> = {}) => ({
  requestId: `req-${++sequence}`,
  type: 'page',
  includeProduct: 1,
  page: { url: 'https://shop.example/products/p-1', title: 'Desk lamp', productId: 'p-1' },
  customerId: 'cust-1',
  currencySymbol: '$',
  ...extra,
});
