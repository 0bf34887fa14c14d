import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '#shared/adapters/aws-clients.ts';
import { type EventHistory, type HistoryEvent, historyDay } from '#shared/domain/ingest/event-history.ts';
import { itemMeta, keys } from './keys.ts';
import { tableName } from './table.ts';

/**
 * The event history (docs/backtest.md): one item per applied event in its store's day partition, sorted by acceptance
 * time, removed by TTL (`expiresAt`). Written with a plain put (the same key again rewrites the same item).
 */
export const dynamoEventHistory = (clock: { now(): number } = { now: () => Date.now() }): EventHistory => ({
  async append(event: HistoryEvent, expiresAt: number) {
    await dynamo().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.eventHistory(event.storeId, historyDay(event.acceptedAt), event.acceptedAt, event.sourceId),
          ...itemMeta('eventHistory'),
          sourceId: event.sourceId,
          endpoint: event.endpoint,
          interface: event.interface,
          acceptedAt: event.acceptedAt,
          ...(event.storeType ? { storeType: event.storeType } : {}),
          data: event.data,
          expiresAt,
        },
      }),
    );
  },
  async page(storeId, day, from, to, after) {
    const { pk } = keys.eventHistory(storeId, day, 0, '');
    const page = await dynamo().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        // TTL deletes up to days late: an item past its retention is not history any more.
        FilterExpression: 'expiresAt > :now',
        ExpressionAttributeValues: {
          ':pk': pk,
          ':from': keys.eventHistoryBound(from),
          // `to` is exclusive: the last millisecond's keys (`<to - 1>#<sourceId>`) all sort below `<to - 1>$`.
          ':to': `${keys.eventHistoryBound(to - 1)}$`,
          ':now': Math.floor(clock.now() / 1000),
        },
        ProjectionExpression: 'sourceId, endpoint, #interface, acceptedAt, storeType, #data',
        ExpressionAttributeNames: { '#interface': 'interface', '#data': 'data' },
        ...(after ? { ExclusiveStartKey: after as Record<string, unknown> } : {}),
      }),
    );
    const items = (page.Items ?? []).map(
      (item): HistoryEvent => ({
        storeId,
        sourceId: String(item.sourceId),
        endpoint: String(item.endpoint),
        interface: item.interface as HistoryEvent['interface'],
        acceptedAt: Number(item.acceptedAt),
        ...(item.storeType ? { storeType: item.storeType as NonNullable<HistoryEvent['storeType']> } : {}),
        data: (item.data ?? {}) as Record<string, unknown>,
      }),
    );
    return page.LastEvaluatedKey ? { items, next: page.LastEvaluatedKey } : { items };
  },
});
