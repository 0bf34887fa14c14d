/** Wiring of the webhook use cases to their adapters (built once per warm function). */

import { sqs } from '#shared/adapters/aws-clients.ts';
import { dynamoWebhookEvents } from '#shared/adapters/dynamodb/engagement.repositories.ts';
import { cachedPerStore } from '#shared/adapters/dynamodb/store.repository.ts';
import { dynamoDeliveryRepository, dynamoWebhookRepository } from '#shared/adapters/dynamodb/webhook.repositories.ts';
import { addressGuard, httpWebhookSender } from '#shared/adapters/http/webhook-sender.ts';
import { masterKey } from '#shared/adapters/secrets/master-key.ts';
import { batchingSender } from '#shared/adapters/sqs/batching-sender.ts';
import { config, required } from '#shared/config.ts';
import { decryptApiKey } from '#shared/domain/stores/api-key.ts';
import type { DeliverDeps } from '#shared/domain/webhooks/deliver.ts';
import type { EmitDeps } from '#shared/domain/webhooks/emit.ts';
import type { ManageWebhookDeps } from '#shared/domain/webhooks/manage-webhooks.ts';
import type { DeliveryQueue, StoreKeys } from '#shared/domain/webhooks/ports.ts';

const clock = { now: () => Date.now() };

const sqsDeliveryQueue = (): DeliveryQueue => {
  const send = batchingSender(sqs, () => required('webhookQueueUrl'));
  return { enqueue: (storeId, deliveryId) => send({ MessageBody: JSON.stringify({ v: 1, storeId, deliveryId }) }) };
};

/** Store keys in clear for signing, decrypted once per store per minute (a rotated key signs within a minute). */
const storeKeys = (): StoreKeys => ({
  keyOf: cachedPerStore(clock, 60_000, async (store) =>
    store ? decryptApiKey(store.keyCipher, await masterKey()) : undefined,
  ),
});

let manage: ManageWebhookDeps | undefined;
let emit: EmitDeps | undefined;
let deliver: DeliverDeps | undefined;

export const manageWebhookDeps = (): ManageWebhookDeps => {
  manage ??= {
    webhooks: dynamoWebhookRepository(),
    deliveries: dynamoDeliveryRepository(),
    queue: sqsDeliveryQueue(),
    guard: addressGuard({ allowPrivate: config().webhookAllowPrivateUrls }),
    clock,
    allowPrivateUrls: config().webhookAllowPrivateUrls,
  };
  return manage;
};

export const emitDeps = (): EmitDeps => {
  emit ??= {
    log: dynamoWebhookEvents(clock),
    webhooks: dynamoWebhookRepository(),
    deliveries: dynamoDeliveryRepository(),
    queue: sqsDeliveryQueue(),
    clock,
  };
  return emit;
};

export const deliverDeps = (): DeliverDeps => {
  deliver ??= {
    webhooks: dynamoWebhookRepository(),
    deliveries: dynamoDeliveryRepository(),
    keys: storeKeys(),
    sender: httpWebhookSender({
      timeoutSeconds: config().webhookTimeoutSeconds,
      allowPrivate: config().webhookAllowPrivateUrls,
    }),
    clock,
    backoffBaseSeconds: config().webhookBackoffBaseSeconds,
  };
  return deliver;
};
