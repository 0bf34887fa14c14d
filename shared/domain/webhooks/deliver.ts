/**
 * One delivery attempt (spec "Delivery and retry", "Delivery headers", "Authentication" rule 5). The worker calls this
 * for each queue message; the answer says whether to acknowledge the message or hold it back for the next retry.
 */
import { createHmac } from 'node:crypto';
import type { Clock } from '#shared/domain/clock.ts';
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
  /** Nothing more to do: delivered, or stopped (subscription gone or changed, unknown delivery). */
  | { readonly done: 'delivered' | 'cancelled' | 'skipped' | 'failed' }
  /** Failed this time: hold the message back this long before the next attempt. */
  | { readonly retryInSeconds: number };

/** Base64 HMAC-SHA256 of the exact raw body, keyed with the store's API key. */
export const signature = (body: string, key: string): string =>
  createHmac('sha256', key).update(body, 'utf8').digest('base64');

export const deliveryHeaders = (delivery: Delivery, key: string): Record<string, string> => ({
  'content-type': 'application/json',
  'user-agent': 'Storeflow-Webhooks/1',
  'x-service-hmac-sha256': signature(delivery.body, key),
  'x-service-topic': delivery.topic,
  'x-service-webhook-id': delivery.webhookId,
  // Not in the spec: a unique id per delivery (the same on every retry) so receivers can de-duplicate.
  'x-service-delivery-id': delivery.id,
});

const settle = async (
  deps: DeliverDeps,
  delivery: Delivery,
  change: { status?: Delivery['status']; attempt?: DeliveryAttempt; reason?: string },
) => {
  const next: Delivery = {
    ...delivery,
    ...(change.status ? { status: change.status } : {}),
    ...(change.reason ? { reason: change.reason } : {}),
    attempts: change.attempt ? [...delivery.attempts, change.attempt] : delivery.attempts,
    updatedAt: deps.clock.now(),
    revision: delivery.revision + 1,
  };
  await deps.deliveries.save(next, delivery.revision);
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
  const delivery = await deps.deliveries.get(message.storeId, message.deliveryId);
  if (delivery?.status !== 'pending') return { done: 'skipped' };

  // Removing or changing a topic's webhook stops deliveries to the old URL.
  const webhook = await deps.webhooks.getByTopic(message.storeId, delivery.topic);
  if (!webhook || webhook.id !== delivery.webhookId || webhook.url !== delivery.url) {
    await settle(deps, delivery, { status: 'cancelled', reason: 'the webhook was removed or changed' });
    return { done: 'cancelled' };
  }
  const key = await deps.keys.keyOf(message.storeId);
  if (!key) {
    await settle(deps, delivery, { status: 'cancelled', reason: 'the store no longer exists' });
    return { done: 'cancelled' };
  }

  const result = await deps.sender.post(delivery.url, delivery.body, deliveryHeaders(delivery, key));
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
  await settle(deps, delivery, { attempt: record });
  return { retryInSeconds: retryDelaySeconds(attempt, deps.backoffBaseSeconds) };
};
