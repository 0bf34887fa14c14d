/**
 * Webhook deliveries (spec "Delivery and retry"): a POST of the event's JSON to the topic's URL; only HTTP 200 accepts.
 * At most 5 retries after the first attempt, 5, 10, 20, 40, 80 seconds apart (the base is configuration). Every
 * attempt is recorded, so a store can see what its receiver answered and re-send a delivery that failed.
 */
import { createHash } from 'node:crypto';
import type { WebhookTopic } from './topics.ts';

/** Attempts in all: the first plus the spec's 5 retries. */
export const MAX_ATTEMPTS = 6;
/** How much of a receiver's answer is kept per attempt. */
export const RESPONSE_EXCERPT_CHARS = 500;

export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'cancelled';

export interface DeliveryAttempt {
  /** Epoch milliseconds. */
  readonly at: number;
  /** The receiver's HTTP status; absent when it never answered. */
  readonly statusCode?: number;
  readonly latencyMs: number;
  /** `delivered` (200), `rejected` (any other status), `timeout`, or `error` (connection, DNS, refused address). */
  readonly outcome: 'delivered' | 'rejected' | 'timeout' | 'error';
  readonly responseExcerpt?: string;
  readonly error?: string;
}

export interface Delivery {
  readonly storeId: string;
  readonly id: string;
  readonly webhookId: string;
  readonly topic: WebhookTopic;
  readonly url: string;
  /** The source event (e.g. `newsletter#<source_id>`): one delivery per event and subscription. */
  readonly eventId: string;
  /** The exact body sent and signed. */
  readonly body: string;
  readonly status: DeliveryStatus;
  readonly attempts: readonly DeliveryAttempt[];
  /** Why a delivery stopped without being delivered (`cancelled`, `failed`). */
  readonly reason?: string;
  /** Epoch milliseconds: an attempt is under way until then (the worker's claim; see `deliver`). */
  readonly claimedUntil?: number;
  /** Epoch milliseconds: when the next retry is due (a copy of the message arriving earlier waits). */
  readonly nextAttemptAt?: number;
  /** Epoch milliseconds. */
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly revision: number;
}

/** Deterministic per event and subscription, so an event handled twice makes one delivery. */
export const deliveryIdOf = (webhookId: string, eventId: string): string =>
  `dl_${createHash('sha256').update(`${webhookId}\n${eventId}`).digest('base64url').slice(0, 24)}`;

/** Delay before retry `n` (1-based): base, 2×base, 4×base, … (spec: 5 s with multiplier 2.0). */
export const retryDelaySeconds = (retry: number, baseSeconds: number): number => baseSeconds * 2 ** (retry - 1);

/** The delivery as the API shows it. */
export const deliveryRecord = (delivery: Delivery) => ({
  id: delivery.id,
  webhookId: delivery.webhookId,
  topic: delivery.topic,
  url: delivery.url,
  status: delivery.status,
  ...(delivery.reason ? { reason: delivery.reason } : {}),
  attempts: delivery.attempts,
  createdAt: delivery.createdAt,
  updatedAt: delivery.updatedAt,
});
