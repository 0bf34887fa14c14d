/** Wiring of the webhook use cases to their adapters (built once per warm function). */

import { dynamoDeliveryRepository, dynamoWebhookRepository } from '#shared/adapters/dynamodb/webhook.repositories.ts';
import { addressGuard, httpWebhookSender } from '#shared/adapters/http/webhook-sender.ts';
import { storeKeys } from '#shared/adapters/secrets/store-keys.ts';
import { sqsDeliveryQueue } from '#shared/adapters/sqs/delivery-queue.ts';
import { systemClock } from '#shared/clock.ts';
import { config } from '#shared/config.ts';
import type { CounterBuffer } from '#shared/domain/attribution/counter-buffer.ts';
import type { DeliverDeps } from '#shared/domain/webhooks/deliver.ts';
import type { EmitDeps } from '#shared/domain/webhooks/emit.ts';
import type { ManageWebhookDeps } from '#shared/domain/webhooks/manage-webhooks.ts';
import { lazy } from '#shared/lazy.ts';
import { batchCounters } from './counters.ts';

/** Delivery attempts by outcome, per store and day (the console's overview), queued at the end of each batch. */
const deliveryCounters = /* @__PURE__ */ lazy(() => batchCounters('Webhook delivery'));
export const attemptCounters = (): CounterBuffer['store'] => deliveryCounters().store;
export const flushAttemptCounters = async (): Promise<void> => {
  await deliveryCounters().flush();
};

export const manageWebhookDeps = /* @__PURE__ */ lazy(
  (): ManageWebhookDeps => ({
    webhooks: dynamoWebhookRepository(),
    deliveries: dynamoDeliveryRepository(),
    queue: sqsDeliveryQueue(),
    guard: addressGuard({ allowPrivate: config().webhookAllowPrivateUrls }),
    clock: systemClock,
    allowPrivateUrls: config().webhookAllowPrivateUrls,
  }),
);

export const emitDeps = /* @__PURE__ */ lazy(
  (): EmitDeps => ({
    webhooks: dynamoWebhookRepository(),
    deliveries: dynamoDeliveryRepository(),
    queue: sqsDeliveryQueue(),
    clock: systemClock,
  }),
);

export const deliverDeps = /* @__PURE__ */ lazy(
  (): DeliverDeps => ({
    webhooks: dynamoWebhookRepository(),
    deliveries: dynamoDeliveryRepository(),
    keys: storeKeys(systemClock),
    sender: httpWebhookSender({
      timeoutSeconds: config().webhookTimeoutSeconds,
      allowPrivate: config().webhookAllowPrivateUrls,
    }),
    clock: systemClock,
    backoffBaseSeconds: config().webhookBackoffBaseSeconds,
  }),
);
