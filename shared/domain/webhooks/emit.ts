/**
 * Emitting a webhook event: the event is recorded in the store's event log (`log`), and when the store subscribes the
 * topic one delivery is recorded (once per event and subscription, whatever retries happen upstream) and queued for the
 * delivery worker. No subscription, nothing sent.
 */
import type { Clock } from '#shared/domain/clock.ts';
import { type Delivery, deliveryIdOf } from './delivery.ts';
import type { DeliveryQueue, DeliveryRepository, WebhookEvents, WebhookRepository } from './ports.ts';

export interface EmitDeps {
  /** Where every emitted event is kept, subscribed or not. */
  readonly log: WebhookEvents;
  readonly webhooks: WebhookRepository;
  readonly deliveries: DeliveryRepository;
  readonly queue: DeliveryQueue;
  readonly clock: Clock;
}

export const webhookEmitter = (deps: EmitDeps): WebhookEvents => ({
  async emit(storeId, topic, body, eventId) {
    await deps.log.emit(storeId, topic, body, eventId);
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
