/** Webhook subscriptions and deliveries. */
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '#shared/adapters/aws-clients.ts';
import type { Delivery } from '#shared/domain/webhooks/delivery.ts';
import type { DeliveryRepository, WebhookRepository } from '#shared/domain/webhooks/ports.ts';
import type { Webhook } from '#shared/domain/webhooks/webhook.ts';
import { itemMeta, keys } from './keys.ts';
import { queryAll, queryPage } from './query.ts';
import { revisionedRepository } from './revisioned.ts';
import { getRecord, tableName } from './table.ts';

export const dynamoWebhookRepository = (): WebhookRepository => ({
  listForStore: (storeId) => queryAll<Webhook>(keys.webhooks(storeId).pk),
  getByTopic: (storeId, topic) => getRecord<Webhook>(keys.webhook(storeId, topic)),
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
