/**
 * Webhook management use cases (spec "Webhook management"): every call is scoped to the authenticated store, so a
 * store never sees, changes or deletes another store's subscription; an id of another store reads as unknown.
 */

import * as v from 'valibot';
import type { Clock } from '#shared/domain/clock.ts';
import { randomBase62 } from '#shared/domain/ids.ts';
import { RevisionConflict } from '#shared/domain/repository.ts';
import { checkedByUseCase, specMessage } from '#shared/domain/validation.ts';
import { conflict, notFound } from '#shared/errors.ts';
import { type Delivery, deliveryRecord } from './delivery.ts';
import type { AddressGuard, DeliveryQueue, DeliveryRepository, WebhookRepository } from './ports.ts';
import { WEBHOOK_TOPICS } from './topics.ts';
import { MAX_WEBHOOK_URL_LENGTH, parseWebhookUrl, type Webhook, webhookRecord } from './webhook.ts';

export interface ManageWebhookDeps {
  readonly webhooks: WebhookRepository;
  readonly deliveries: DeliveryRepository;
  readonly queue: DeliveryQueue;
  readonly guard: AddressGuard;
  readonly clock: Clock;
  readonly allowPrivateUrls: boolean;
}

/** Spec: an invalid topic (or no JSON object at all) gives code 400 with message `Topic noneffective`. */
const TOPIC_NONEFFECTIVE = specMessage('Topic noneffective');

/**
 * A `POST`/`PUT /webhooks` body, read by the handler and described by the API document: the topic checked here; the
 * URL's rules need the deployment's policy (private addresses, DNS) and are the use case's.
 */
export const WebhookSubscription = v.object(
  {
    topic: v.pipe(
      v.picklist(WEBHOOK_TOPICS, TOPIC_NONEFFECTIVE),
      v.description('Webhook topic; any other value answers 400 `Topic noneffective`'),
    ),
    url: checkedByUseCase({
      type: 'string',
      minLength: 1,
      maxLength: MAX_WEBHOOK_URL_LENGTH,
      description: 'Absolute https URL resolving to public addresses (locally also http://127.0.0.1 and localhost)',
    }),
  },
  // Not an object, or no topic: the spec's message. A missing URL reads "url is required" like any missing field.
  (issue) => (issue.expected === '"url"' ? 'is required' : TOPIC_NONEFFECTIVE),
);

/** A subscription request as the HTTP layer read it: the topic checked, the URL as sent. */
export type WebhookSubscriptionInput = v.InferOutput<typeof WebhookSubscription>;

const subscription = async (deps: ManageWebhookDeps, input: WebhookSubscriptionInput) => {
  const parsedUrl = parseWebhookUrl(input.url, { allowPrivate: deps.allowPrivateUrls });
  await deps.guard.assertPublic(parsedUrl.url);
  return { topic: input.topic, url: parsedUrl.text };
};

/** `POST /webhooks`: subscribes the topic; an earlier subscription of the topic is replaced. */
export const createWebhook = async (deps: ManageWebhookDeps, storeId: string, input: WebhookSubscriptionInput) => {
  const { topic, url } = await subscription(deps, input);
  const now = deps.clock.now();
  const webhook: Webhook = {
    storeId,
    id: `wh_${randomBase62(20)}`,
    topic,
    url,
    format: 'json',
    createdAt: Math.floor(now / 1000),
    updatedAt: now,
  };
  await deps.webhooks.put(webhook);
  return webhookRecord(webhook);
};

/** `PUT /webhooks`: changes the URL of the topic's subscription (matched by topic). */
export const updateWebhook = async (deps: ManageWebhookDeps, storeId: string, input: WebhookSubscriptionInput) => {
  const { topic, url } = await subscription(deps, input);
  const existing = await deps.webhooks.getByTopic(storeId, topic);
  if (!existing) throw notFound(`No webhook for topic ${topic}; create it with POST`);
  const webhook: Webhook = { ...existing, url, updatedAt: deps.clock.now() };
  await deps.webhooks.put(webhook);
  return webhookRecord(webhook);
};

export const listWebhooks = async (deps: ManageWebhookDeps, storeId: string) => {
  const list = (await deps.webhooks.listForStore(storeId)).map(webhookRecord);
  return { list, total: list.length };
};

export const countWebhooks = async (deps: ManageWebhookDeps, storeId: string) =>
  (await deps.webhooks.listForStore(storeId)).length;

const ownWebhook = async (deps: ManageWebhookDeps, storeId: string, webhookId: string | undefined) => {
  const webhook = (await deps.webhooks.listForStore(storeId)).find((w) => w.id === webhookId);
  if (!webhook) throw notFound('Webhook not found');
  return webhook;
};

/** `DELETE /webhooks/{webHookId}`: deliveries still queued for it stop (the worker finds it gone). */
export const deleteWebhook = async (deps: ManageWebhookDeps, storeId: string, webhookId: string | undefined) => {
  const webhook = await ownWebhook(deps, storeId, webhookId);
  await deps.webhooks.delete(storeId, webhook.topic);
  return true;
};

/** `limit` of the deliveries list (checked by the HTTP layer's query schema). */
export const DELIVERY_PAGE = { default: 20, max: 100 } as const;

/**
 * `GET /webhooks/{id}/deliveries?limit=&cursor=`: the subscription's deliveries, newest first. A removed
 * subscription's deliveries stay listed (they are the store's own: the index is keyed by store); an id the store never
 * had answers 404.
 */
export const listDeliveries = async (
  deps: ManageWebhookDeps,
  storeId: string,
  webhookId: string | undefined,
  query: { readonly limit: number; readonly cursor?: string | undefined },
) => {
  if (!webhookId) throw notFound('Webhook not found');
  const page = await deps.deliveries.listForWebhook(storeId, webhookId, {
    limit: query.limit,
    ...(query.cursor ? { cursor: query.cursor } : {}),
  });
  if (page.items.length === 0 && !query.cursor) await ownWebhook(deps, storeId, webhookId);
  return { list: page.items.map(deliveryRecord), ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
};

/** Writes of a re-send tried before a concurrent change answers 409: the first, and one more on a fresh read. */
const RETRY_WRITE_TRIES = 2;
/** The 409 message of a re-send whose delivery changed under both its writes. */
export const DELIVERY_BUSY = 'The delivery is being changed by another request; retry';

/**
 * `POST /webhooks/deliveries/{deliveryId}/retry`: sends a failed (or cancelled) delivery again, with a fresh ladder.
 *
 * The write is conditional on the revision read. When another request (a second re-send) or the delivery worker changed
 * the delivery in between, the delivery is read again and the checks run on what it is now: a delivery that is now
 * `pending` or `delivered` (e.g. re-sent by the other request) answers 409 saying so; one still `failed` or `cancelled` is
 * re-sent. A delivery changed again during that second try answers 409 "being changed by another request; retry".
 * Nothing is queued unless the write succeeded, so a re-send never sends twice.
 */
export const retryDelivery = async (deps: ManageWebhookDeps, storeId: string, deliveryId: string | undefined) => {
  for (let attempt = 1; ; attempt++) {
    const delivery = deliveryId ? await deps.deliveries.get(storeId, deliveryId) : undefined;
    if (!delivery) throw notFound('Delivery not found');
    if (delivery.status === 'pending' || delivery.status === 'delivered') {
      throw conflict(`The delivery is ${delivery.status}; only failed or cancelled deliveries can be re-sent`);
    }
    const webhook = await deps.webhooks.getByTopic(storeId, delivery.topic);
    if (!webhook) throw conflict(`No webhook for topic ${delivery.topic} any more`);
    const { reason: _reason, ...rest } = delivery;
    const next: Delivery = {
      ...rest,
      webhookId: webhook.id,
      url: webhook.url,
      status: 'pending',
      updatedAt: deps.clock.now(),
      revision: delivery.revision + 1,
    };
    try {
      await deps.deliveries.save(next, delivery.revision);
    } catch (error) {
      if (!(error instanceof RevisionConflict)) throw error;
      if (attempt >= RETRY_WRITE_TRIES) throw conflict(DELIVERY_BUSY);
      continue;
    }
    await deps.queue.enqueue(storeId, delivery.id);
    return deliveryRecord(next);
  }
};
