/**
 * Helpers of the flow engine's end-to-end tests: flows created through the flows API, events sent as a merchant's
 * integration sends them, the local mail store, the explain views, and barriers that tell when everything queued
 * (events, timers, flow messages) has been handled, so "no email" is asserted rather than hoped for.
 */
import { expect } from 'vitest';
import type { LocalRuntime } from '#local/runtime.ts';
import { eventually, newStore, postEvent, queueIsEmpty, type TestStore } from '#test/support/local.ts';
import { api } from '#test/support/webhooks.ts';

export { eventually, newStore, type TestStore };

let sequence = 0;
/** A value no other call of the file uses (source ids at most 50 characters). */
export const uid = (prefix: string): string => `${prefix}-${++sequence}-${Math.random().toString(36).slice(2, 8)}`;

/** An address unique to the test, so mails are told apart by recipient. */
export const address = (name: string): string => `${uid(name)}@example.com`.toLowerCase();

export const SENDER = { email: 'shop@acme.example', name: 'Acme' };

export interface FlowView {
  readonly id: string;
  readonly trigger: string;
  readonly steps: { id: string; type: string }[];
}

/**
 * The store's own sender: flow email goes out only from a verified domain of the store, and a domain belongs to one
 * store, so each test store gets a subdomain of `acme.example` (definitions written with SENDER are rewritten to it).
 */
export const senderOf = (store: TestStore) => ({
  email: `shop@${store.storeId.toLowerCase().replace(/[^a-z0-9]/g, '-')}.acme.example`,
  name: SENDER.name,
});

const withSender = new Set<string>();
/** Registers the store's sending domain (verified at once locally), once per store. */
export const ensureSender = async (runtime: LocalRuntime, store: TestStore): Promise<void> => {
  if (withSender.has(store.storeId)) return;
  const { email } = senderOf(store);
  const answer = await api(runtime, store.apiKey, 'POST', '/api/v1/senders', {
    domain: email.slice(email.indexOf('@') + 1),
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  withSender.add(store.storeId);
};

/** `POST /api/v1/flows` with a preset. */
export const presetFlow = async (runtime: LocalRuntime, store: TestStore, preset: string): Promise<FlowView> => {
  await ensureSender(runtime, store);
  const answer = await api(runtime, store.apiKey, 'POST', '/api/v1/flows', { preset, from: senderOf(store) });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return (answer.body as { data: FlowView }).data;
};

/** `POST /api/v1/flows` with a full definition. */
export const definedFlow = async (
  runtime: LocalRuntime,
  store: TestStore,
  definition: Record<string, unknown>,
): Promise<FlowView> => {
  await ensureSender(runtime, store);
  const own = JSON.parse(JSON.stringify(definition).replaceAll(SENDER.email, senderOf(store).email)) as unknown;
  const answer = await api(runtime, store.apiKey, 'POST', '/api/v1/flows', own);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return (answer.body as { data: FlowView }).data;
};

/** Sends a general event and asserts `{code: 200}`. */
export const event = async (
  runtime: LocalRuntime,
  store: TestStore,
  endpoint: string,
  data: Record<string, unknown>,
): Promise<string> => {
  const sourceId = uid('src').slice(0, 50);
  const answer = await postEvent(runtime.urls.main, store.apiKey, { endpoint, source_id: sourceId, data });
  expect(answer.body, `${endpoint} ${JSON.stringify(data)}`).toEqual({ code: 200, message: 'ok' });
  return sourceId;
};

/** Sends a headless event and asserts `{success: true}`. */
export const headlessEvent = async (
  runtime: LocalRuntime,
  store: TestStore,
  endpoint: string,
  data: Record<string, unknown>,
): Promise<void> => {
  const response = await fetch(`${runtime.urls.front}/api/v1/headless/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-access-token': store.apiKey },
    body: JSON.stringify({ endpoint, source_id: uid('hsrc').slice(0, 50), data }),
  });
  expect(await response.json(), endpoint).toEqual({ success: true });
};

/** A customer with subscribed email consent (marketing flows mail only those by default). */
export const subscribedCustomer = (
  runtime: LocalRuntime,
  store: TestStore,
  id: string,
  email: string,
  extra: Record<string, unknown> = {},
) =>
  event(runtime, store, 'customers/create', {
    id,
    email,
    first_name: 'Ada',
    created_at: 1_700_000_000,
    email_marketing_consent: { state: 'subscribed' },
    // Not the subject of these tests: no customer-created flow for it.
    ignore_flow: 'Y',
    ...extra,
  });

export interface StoredMail {
  readonly messageId: string;
  readonly from: string;
  readonly destination: { to: string[] };
  readonly subject: string;
  readonly body: { html?: string; text?: string };
  readonly headers?: { name: string; value: string }[];
}

/** Every mail in the local SES (aws-ses-v2-local's `/store`). */
export const mailStore = async (runtime: LocalRuntime): Promise<StoredMail[]> => {
  const response = await fetch(`${runtime.urls.mail}/store`);
  return ((await response.json()) as { emails: StoredMail[] }).emails;
};

/** The mails to `email` (recipients may carry a display name: `"Ada" <ada@…>`). */
export const mailsTo = async (runtime: LocalRuntime, email: string): Promise<StoredMail[]> =>
  (await mailStore(runtime)).filter((mail) => mail.destination.to.some((to) => to.toLowerCase().includes(email)));

/** Waits for `count` mails to `email` and returns them. */
export const awaitMails = (runtime: LocalRuntime, email: string, count = 1, timeoutMs = 60_000) =>
  eventually(
    `${count} mail(s) to ${email}`,
    async () => {
      const mails = await mailsTo(runtime, email);
      return mails.length >= count ? mails : undefined;
    },
    timeoutMs,
  );

/**
 * Waits until the ingest, timers and flows queues hold nothing, visible or in flight, twice in a row (a poller
 * deletes a message only after its handler returned, and a handler may queue the next message before that).
 */
export const settled = async (runtime: LocalRuntime): Promise<void> => {
  let quiet = 0;
  await eventually(
    'the ingest, timers and flows queues to drain',
    async () => {
      const empty = await Promise.all(
        (['ingest', 'timers', 'flows'] as const).map((queue) => queueIsEmpty(runtime.queueUrls[queue])),
      );
      quiet = empty.every(Boolean) ? quiet + 1 : 0;
      return quiet >= 3 ? true : undefined;
    },
    60_000,
  );
};

export interface ExplainItem {
  readonly flowId: string | null;
  readonly triggerKind: string;
  readonly email: string | null;
  readonly outcome: 'entered' | 'skipped';
  readonly reason?: string;
  readonly detail?: Record<string, unknown>;
  readonly runId?: string;
  readonly run?: { id: string; status: string; events: { type: string; reason?: string; messageId?: string }[] };
}

/** `GET /api/v1/flows/{flowId}/runs`. */
export const flowRuns = async (runtime: LocalRuntime, store: TestStore, flowId: string, query = '') => {
  const answer = await api(runtime, store.apiKey, 'GET', `/api/v1/flows/${flowId}/runs${query}`);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return (answer.body as { data: { list: ExplainItem[]; nextCursor?: string } }).data;
};

/** `GET /api/v1/flow-activity?email=`. */
export const contactActivity = async (runtime: LocalRuntime, store: TestStore, email: string, query = '') => {
  const answer = await api(
    runtime,
    store.apiKey,
    'GET',
    `/api/v1/flow-activity?email=${encodeURIComponent(email)}${query}`,
  );
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return (answer.body as { data: { list: ExplainItem[]; nextCursor?: string } }).data;
};

/** Waits until the flow's explain view lists `count` evaluations, and returns them. */
export const awaitEvaluations = (runtime: LocalRuntime, store: TestStore, flowId: string, count = 1) =>
  eventually(
    `${count} evaluation(s) of ${flowId}`,
    async () => {
      const { list } = await flowRuns(runtime, store, flowId);
      return list.length >= count ? list : undefined;
    },
    60_000,
  );

export const cartLine = (productId: string, title: string, price: string) => ({
  product_id: productId,
  variant_id: `${productId}-v1`,
  title,
  quantity: 2,
  price,
  product_image_url: `https://shop.example/${productId}.jpg`,
});
