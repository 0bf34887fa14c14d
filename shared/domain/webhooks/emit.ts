/**
 * Emitting a webhook event: when the store subscribes the topic, one delivery is recorded (once per event and
 * subscription, whatever retries happen upstream; it holds the topic, event id and body) and queued for the delivery
 * worker. The record is written before its queue message; a process stopped between the two is made good by emitting
 * the same event again (its callers emit on every handling of their message until what they announce is stored), which
 * finds the same delivery (its id comes from the event and the subscription) and queues it again while it is pending.
 * No subscription, nothing written and nothing sent (before the November 2026 cost pass every event was also put in a
 * `STORE#<id>#WEBHOOK-EVENTS` log that nothing read).
 */
import type { Clock } from '#shared/domain/clock.ts';
import { type Delivery, deliveryIdOf } from './delivery.ts';
import type { DeliveryQueue, DeliveryRepository, WebhookEvents, WebhookRepository } from './ports.ts';

export interface EmitDeps {
  readonly webhooks: WebhookRepository;
  readonly deliveries: DeliveryRepository;
  readonly queue: DeliveryQueue;
  readonly clock: Clock;
}

export const webhookEmitter = (deps: EmitDeps): WebhookEvents => ({
  async emit(storeId, topic, body, eventId) {
    const webhook = await deps.webhooks.getByTopic(storeId, topic);
    if (!webhook) return;
    const id = deliveryIdOf(webhook.id, eventId);
    const existing = await deps.deliveries.get(storeId, id);
    if (!existing) {
      const now = deps.clock.now();
      const delivery: Delivery = {
        storeId,
        id,
        webhookId: webhook.id,
        topic,
        url: webhook.url,
        eventId,
        body: JSON.stringify(body),
        status: 'pending',
        attempts: [],
        createdAt: now,
        updatedAt: now,
        revision: 1,
      };
      try {
        await deps.deliveries.save(delivery, 0);
      } catch (error) {
        // A concurrent handling of the same event recorded it first: queue it (again) below, the worker de-duplicates.
        if (!(error instanceof Error && error.name === 'RevisionConflict')) throw error;
      }
    } else if (existing.status !== 'pending') {
      return; // Already delivered, failed or cancelled: a re-handled event does not send it again.
    }
    await deps.queue.enqueue(storeId, id);
  },
});
