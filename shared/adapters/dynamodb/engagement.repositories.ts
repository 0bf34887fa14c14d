/** Page-view history, back-in-stock subscriptions, recorded flow triggers and outgoing webhook events. */
import { DeleteCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { type BackInStockSubscription, subscriberKey } from '../../domain/back-in-stock/subscription.ts';
import type { FlowTrigger } from '../../domain/flows/trigger.ts';
import { PAGE_VIEW_RETENTION_SECONDS, type PageView } from '../../domain/page-views/page-view.ts';
import type { BackInStockRepository, FlowTriggers, PageViewRepository, WebhookEvents } from '../../domain/ports.ts';
import { dynamo } from '../aws-clients.ts';
import { itemMeta, keys, withoutMeta } from './keys.ts';
import { isConditionFailure, tableName } from './table.ts';

/** Every item of one partition, following pagination. */
export const queryAll = async <T>(pk: string): Promise<T[]> => {
  const items: T[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
        ConsistentRead: true,
        ExclusiveStartKey,
      }),
    );
    for (const item of page.Items ?? []) items.push(withoutMeta<T>(item));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
};

/** A put that succeeds once per key; a repeat (a redelivered message) is a no-op. */
const putOnce = async (item: Record<string, unknown>) => {
  try {
    await dynamo().send(
      new PutCommand({ TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
};

export const dynamoPageViewRepository = (): PageViewRepository => ({
  async add(view: PageView) {
    await dynamo().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.pageView(view.storeId, view.contactKey, view.viewedAt, view.sourceId),
          ...itemMeta('pageView'),
          ...view,
          expiresAt: view.viewedAt + PAGE_VIEW_RETENTION_SECONDS,
        },
      }),
    );
  },
});

export const dynamoBackInStockRepository = (): BackInStockRepository => {
  const key = (s: BackInStockSubscription) => keys.backInStock(s.storeId, s.productId, s.variantId, subscriberKey(s));
  return {
    async subscribe(subscription) {
      await dynamo().send(
        new PutCommand({
          TableName: tableName(),
          Item: { ...key(subscription), ...itemMeta('backInStock'), ...subscription },
        }),
      );
    },
    listForProduct: (storeId, productId) =>
      queryAll<BackInStockSubscription>(keys.backInStockByProduct(storeId, productId).pk),
    async remove(subscription) {
      await dynamo().send(new DeleteCommand({ TableName: tableName(), Key: key(subscription) }));
    },
  };
};

/**
 * Records flow triggers, one item per trigger id: the observable result of the rules that decide which flow an event
 * starts. `queuedFlowTriggers` (sqs/flow-queue.ts) wraps this and queues each trigger for the flow engine.
 */
export const dynamoFlowTriggers = (): FlowTriggers => ({
  fire: (trigger: FlowTrigger) =>
    putOnce({ ...keys.trigger(trigger.storeId, trigger.id), ...itemMeta('trigger'), ...trigger }),
});

export const listFlowTriggers = (storeId: string) => queryAll<FlowTrigger>(keys.triggers(storeId).pk);

export interface RecordedWebhookEvent {
  readonly storeId: string;
  readonly eventId: string;
  readonly topic: string;
  readonly body: Record<string, unknown>;
  readonly createdAt: number;
}

/** Outgoing webhook events, recorded once per event id; delivery picks them up from here. */
export const dynamoWebhookEvents = (clock: { now(): number }): WebhookEvents => ({
  emit: (storeId, topic, body, eventId) =>
    putOnce({
      ...keys.webhookEvent(storeId, eventId),
      ...itemMeta('webhookEvent'),
      storeId,
      eventId,
      topic,
      body,
      createdAt: clock.now(),
    }),
});

export const listWebhookEvents = (storeId: string) => queryAll<RecordedWebhookEvent>(keys.webhookEvents(storeId).pk);
