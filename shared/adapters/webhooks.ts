/** Wiring of the webhook use cases to their adapters (built once per warm function). */
import { config, required } from '../config.ts';
import type { DeliveryQueue, StoreKeys } from '../domain/ports.ts';
import { decryptApiKey } from '../domain/stores/api-key.ts';
import type { DeliverDeps } from '../domain/webhooks/deliver.ts';
import type { EmitDeps } from '../domain/webhooks/emit.ts';
import type { ManageWebhookDeps } from '../domain/webhooks/manage-webhooks.ts';
import { sqs } from './aws-clients.ts';
import { dynamoWebhookEvents } from './dynamodb/engagement.repositories.ts';
import { cachedPerStore } from './dynamodb/store.repository.ts';
import { dynamoDeliveryRepository, dynamoWebhookRepository } from './dynamodb/webhook.repositories.ts';
import { addressGuard, httpWebhookSender } from './http/webhook-sender.ts';
import { masterKey } from './secrets/master-key.ts';
import { batchingSender } from './sqs/batching-sender.ts';

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
