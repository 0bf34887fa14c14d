/**
 * One delivery attempt (spec "Delivery and retry", "Delivery headers", "Authentication" rule 5). The worker calls this
 * for each queue message; the answer says whether to acknowledge the message or hold it back for the next retry.
 */
import { createHmac } from 'node:crypto';
import type { Clock } from '#shared/domain/clock.ts';
import { RevisionConflict } from '#shared/domain/repository.ts';
import { type Delivery, type DeliveryAttempt, MAX_ATTEMPTS, retryDelaySeconds } from './delivery.ts';
import type { DeliveryRepository, StoreKeys, WebhookRepository, WebhookSender } from './ports.ts';

export interface DeliverDeps {
  readonly webhooks: WebhookRepository;
  readonly deliveries: DeliveryRepository;
  readonly keys: StoreKeys;
  readonly sender: WebhookSender;
  readonly clock: Clock;
  readonly backoffBaseSeconds: number;
}

export type DeliverOutcome =
  /**
   * Nothing more to do: delivered, or stopped (subscription gone or changed, unknown delivery), or `skipped`: not
   * pending, or another copy of the message just claimed the attempt (its own message carries the delivery on).
   */
  | { readonly done: 'delivered' | 'cancelled' | 'skipped' | 'failed' }
  /** Failed this time: hold the message back this long before the next attempt. */
  | { readonly retryInSeconds: number }
  /** Arrived before its retry is due, or while an attempt is claimed: hold it back this long, no attempt made. */
  | { readonly waitSeconds: number };

/**
 * How long an attempt holds its delivery (`claimedUntil`): the receiver's 10 s, the writes around it, and room. A
 * worker that dies mid-attempt leaves its message on the queue, which comes back after the visibility timeout (longer
 * than this) and attempts again.
 */
export const CLAIM_MS = 30_000;
/** A retry's message may come back this much before `nextAttemptAt` (SQS visibility is kept to about a second). */
const EARLY_MS = 1_000;

/** Base64 HMAC-SHA256 of the exact raw body, keyed with the store's API key. */
export const signature = (body: string, key: string): string =>
  createHmac('sha256', key).update(body, 'utf8').digest('base64');

/**
 * The spec signs the body alone, so a recorded delivery can be posted again later, or under a new delivery id, and
 * still verify. Beside the spec's header, each attempt carries its time (`X-Service-Timestamp`, epoch seconds) and a
 * signature over that time and the body (`${timestamp}.${body}`), so a receiver that checks both can refuse a request
 * older than a few minutes (docs/webhooks.md).
 */
export const timestampedSignature = (timestamp: string, body: string, key: string): string =>
  signature(`${timestamp}.${body}`, key);

export const deliveryHeaders = (delivery: Delivery, key: string, now: number): Record<string, string> => {
  const timestamp = String(Math.floor(now / 1000));
  return {
    'content-type': 'application/json',
    'user-agent': 'Storeflow-Webhooks/1',
    'x-service-hmac-sha256': signature(delivery.body, key),
    'x-service-timestamp': timestamp,
    'x-service-timestamp-hmac-sha256': timestampedSignature(timestamp, delivery.body, key),
    'x-service-topic': delivery.topic,
    'x-service-webhook-id': delivery.webhookId,
    // Not in the spec: a unique id per delivery (the same on every retry) so receivers can de-duplicate.
    'x-service-delivery-id': delivery.id,
  };
};

/** Writes the delivery changed (conditional on the revision read); the attempt's claim goes unless `claimedUntil`. */
const settle = async (
  deps: DeliverDeps,
  delivery: Delivery,
  change: {
    status?: Delivery['status'];
    attempt?: DeliveryAttempt;
    reason?: string;
    claimedUntil?: number;
    nextAttemptAt?: number;
  },
): Promise<Delivery> => {
  const { claimedUntil: _claim, nextAttemptAt: _next, ...rest } = delivery;
  const next: Delivery = {
    ...rest,
    ...(change.status ? { status: change.status } : {}),
    ...(change.reason ? { reason: change.reason } : {}),
    ...(change.claimedUntil ? { claimedUntil: change.claimedUntil } : {}),
    ...(change.nextAttemptAt ? { nextAttemptAt: change.nextAttemptAt } : {}),
    attempts: change.attempt ? [...delivery.attempts, change.attempt] : delivery.attempts,
    updatedAt: deps.clock.now(),
    revision: delivery.revision + 1,
  };
  await deps.deliveries.save(next, delivery.revision);
  return next;
};

/**
 * Claims the attempt before anything is sent, so two copies of one message (SQS delivers at least once) cannot both
 * post: the claim is a conditional write, and the copy that loses it, or finds a live claim, is `skipped`.
 */
const claim = async (deps: DeliverDeps, delivery: Delivery): Promise<Delivery | undefined> => {
  try {
    return await settle(deps, delivery, { claimedUntil: deps.clock.now() + CLAIM_MS });
  } catch (error) {
    if (!(error instanceof RevisionConflict)) throw error;
    const now = await deps.deliveries.get(delivery.storeId, delivery.id);
    if (now?.status !== 'pending' || (now.claimedUntil ?? 0) > deps.clock.now()) return undefined;
    throw error;
  }
};

/**
 * Attempts the delivery. `attempt` is the queue's receive count for this message (1 for the first try, 6 for the
 * last retry): after a re-send through the API the ladder starts again at 1.
 */
export const deliver = async (
  deps: DeliverDeps,
  message: { storeId: string; deliveryId: string },
  attempt: number,
): Promise<DeliverOutcome> => {
  const read = await deps.deliveries.get(message.storeId, message.deliveryId);
  if (read?.status !== 'pending') return { done: 'skipped' };
  const now = deps.clock.now();
  // A live claim: another copy is attempting, or this very message is back after its worker died mid-attempt (a
  // visibility timeout shorter than the claim). Skipping would lose the delivery in the second case: wait it out.
  if ((read.claimedUntil ?? 0) > now) return { waitSeconds: Math.ceil(((read.claimedUntil ?? 0) - now) / 1000) };
  if ((read.nextAttemptAt ?? 0) - EARLY_MS > now) {
    return { waitSeconds: Math.ceil(((read.nextAttemptAt ?? 0) - now) / 1000) };
  }

  // Removing or changing a topic's webhook stops deliveries to the old URL.
  const webhook = await deps.webhooks.getByTopic(message.storeId, read.topic);
  if (!webhook || webhook.id !== read.webhookId || webhook.url !== read.url) {
    await settle(deps, read, { status: 'cancelled', reason: 'the webhook was removed or changed' });
    return { done: 'cancelled' };
  }
  const key = await deps.keys.keyOf(message.storeId);
  if (!key) {
    await settle(deps, read, { status: 'cancelled', reason: 'the store no longer exists' });
    return { done: 'cancelled' };
  }

  const delivery = await claim(deps, read);
  if (!delivery) return { done: 'skipped' };
  const result = await deps.sender.post(delivery.url, delivery.body, deliveryHeaders(delivery, key, deps.clock.now()));
  const record: DeliveryAttempt = { at: deps.clock.now(), ...result };
  if (result.outcome === 'delivered') {
    await settle(deps, delivery, { status: 'delivered', attempt: record });
    return { done: 'delivered' };
  }
  if (attempt >= MAX_ATTEMPTS) {
    await settle(deps, delivery, {
      status: 'failed',
      attempt: record,
      reason: `no HTTP 200 after ${MAX_ATTEMPTS} attempts`,
    });
    return { done: 'failed' };
  }
  const retryInSeconds = retryDelaySeconds(attempt, deps.backoffBaseSeconds);
  await settle(deps, delivery, { attempt: record, nextAttemptAt: record.at + retryInSeconds * 1000 });
  return { retryInSeconds };
};
