/** Ports of the webhooks area: what its use cases need from the outside world. Nothing here imports an AWS SDK. */

import type { Repository } from '#shared/domain/repository.ts';
import type { Delivery } from './delivery.ts';
import type { WebhookTopic } from './topics.ts';
import type { Webhook } from './webhook.ts';

/** Outgoing webhook events, delivered to the store's subscription for the topic (if any). */
export interface WebhookEvents {
  /** Idempotent by `eventId`. */
  emit(storeId: string, topic: WebhookTopic, body: Record<string, unknown>, eventId: string): Promise<void>;
}

/** A store's webhook subscriptions: at most one per topic. */
export interface WebhookRepository {
  listForStore(storeId: string): Promise<Webhook[]>;
  getByTopic(storeId: string, topic: WebhookTopic): Promise<Webhook | undefined>;
  /** Writes the topic's subscription, replacing any earlier one. */
  put(webhook: Webhook): Promise<void>;
  delete(storeId: string, topic: WebhookTopic): Promise<void>;
}

export interface DeliveryPage {
  readonly items: Delivery[];
  /** Opaque; absent on the last page. */
  readonly nextCursor?: string;
}

export interface DeliveryRepository extends Repository<Delivery> {
  /** Newest first. */
  listForWebhook(storeId: string, webhookId: string, page: { limit: number; cursor?: string }): Promise<DeliveryPage>;
}

/** The webhook delivery queue: a message per delivery to attempt. */
export interface DeliveryQueue {
  enqueue(storeId: string, deliveryId: string): Promise<void>;
}

/** Refuses URLs whose host resolves to loopback, private, link-local or metadata addresses (unless allowed). */
export interface AddressGuard {
  assertPublic(url: URL): Promise<void>;
}

export interface PostResult {
  readonly statusCode?: number;
  readonly responseExcerpt?: string;
  readonly latencyMs: number;
  readonly outcome: 'delivered' | 'rejected' | 'timeout' | 'error';
  readonly error?: string;
}

/** Sends one webhook request (the address guard applies at connect time, against DNS rebinding). */
export interface WebhookSender {
  post(url: string, body: string, headers: Readonly<Record<string, string>>): Promise<PostResult>;
}

/** A store's API key in clear: webhook bodies are signed with it (spec "Authentication" rule 5). */
export interface StoreKeys {
  keyOf(storeId: string): Promise<string | undefined>;
}
