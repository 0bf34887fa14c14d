/** Webhook subscriptions and deliveries. */
import { DeleteCommand, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { DeliveryRepository, WebhookRepository } from '../../domain/ports.ts';
import type { Delivery } from '../../domain/webhooks/delivery.ts';
import type { Webhook } from '../../domain/webhooks/webhook.ts';
import { validationError } from '../../errors.ts';
import { dynamo } from '../aws-clients.ts';
import { queryAll } from './engagement.repositories.ts';
import { itemMeta, keys, withoutMeta } from './keys.ts';
import { revisionedRepository } from './revisioned.ts';
import { tableName } from './table.ts';

export const dynamoWebhookRepository = (): WebhookRepository => ({
  listForStore: (storeId) => queryAll<Webhook>(keys.webhooks(storeId).pk),
  async getByTopic(storeId, topic) {
    const { Item } = await dynamo().send(
      new GetCommand({ TableName: tableName(), Key: keys.webhook(storeId, topic), ConsistentRead: true }),
    );
    return Item ? withoutMeta<Webhook>(Item) : undefined;
  },
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

/** Page cursors are the index position, opaque to callers; one of another store or webhook is refused. */
const encodeCursor = (key: Record<string, unknown>) => Buffer.from(JSON.stringify(key)).toString('base64url');
const decodeCursor = (cursor: string, gsi1pk: string): Record<string, unknown> => {
  try {
    const key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Record<string, unknown>;
    if (key.gsi1pk === gsi1pk && typeof key.gsi1sk === 'string' && typeof key.pk === 'string') return key;
  } catch {
    // fall through
  }
  throw validationError('cursor is not a cursor of this list');
};

export const dynamoDeliveryRepository = (): DeliveryRepository => ({
  ...revisionedRepository<Delivery>({
    entity: 'delivery',
    key: keys.delivery,
    idOf: (delivery) => delivery.id,
    indexKeys: (delivery) =>
      keys.deliveryByWebhook(delivery.storeId, delivery.webhookId, delivery.createdAt, delivery.id),
  }),
  async listForWebhook(storeId, webhookId, page) {
    const { gsi1pk } = keys.deliveryByWebhook(storeId, webhookId, 0, '');
    const result = await dynamo().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': gsi1pk },
        ScanIndexForward: false,
        Limit: page.limit,
        ...(page.cursor ? { ExclusiveStartKey: decodeCursor(page.cursor, gsi1pk) } : {}),
      }),
    );
    const items = (result.Items ?? []).map((item) => withoutMeta<Delivery>(item));
    return result.LastEvaluatedKey ? { items, nextCursor: encodeCursor(result.LastEvaluatedKey) } : { items };
  },
});
