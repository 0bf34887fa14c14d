/** Webhook subscriptions and deliveries. */

import { dynamo } from '#shared/adapters/aws-clients.ts';
import { DeleteCommand, PutCommand } from '#shared/adapters/dynamodb-client.ts';
import type { Delivery } from '#shared/domain/webhooks/delivery.ts';
import type { DeliveryRepository, WebhookRepository } from '#shared/domain/webhooks/ports.ts';
import type { Webhook } from '#shared/domain/webhooks/webhook.ts';
import { directReads, type ItemReader, readRecord } from './coalesced.ts';
import { itemMeta, keys } from './keys.ts';
import { queryAll, queryPage } from './query.ts';
import { revisionedRepository } from './revisioned.ts';
import { tableName } from './table.ts';

/** `reads`: where `getByTopic` reads (the email-events worker gathers its batch's reads, `coalesced.ts`). */
export const dynamoWebhookRepository = (reads: ItemReader = directReads): WebhookRepository => ({
  listForStore: (storeId) => queryAll<Webhook>(keys.webhooks(storeId).pk),
  getByTopic: (storeId, topic) => readRecord<Webhook>(reads, keys.webhook(storeId, topic)),
  async put(webhook) {
    await dynamo().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...keys.webhook(webhook.storeId, webhook.topic), ...itemMeta('webhook'), ...webhook },
      }),
    );
  },
  async delete(storeId, topic) {
    await dynamo().send(new DeleteCommand({ TableName: tableName(), Key: keys.webhook(storeId, topic) }));
  },
});

export const dynamoDeliveryRepository = (): DeliveryRepository => ({
  ...revisionedRepository<Delivery>({
    entity: 'delivery',
    key: keys.delivery,
    idOf: (delivery) => delivery.id,
    indexKeys: (delivery) =>
      keys.deliveryByWebhook(delivery.storeId, delivery.webhookId, delivery.createdAt, delivery.id),
  }),
  listForWebhook: (storeId, webhookId, page) =>
    queryPage<Delivery>({ index: 'gsi1', partition: keys.deliveryByWebhook(storeId, webhookId, 0, '').gsi1pk, page }),
});
