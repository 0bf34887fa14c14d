/**
 * The timer wheel's buckets (`shared/domain/timers/wheel.ts`): one partition per store and due minute, one item per
 * wait (keyed by the timer's name, so setting it again overwrites it), expiring two days after the minute.
 */
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '#shared/adapters/aws-clients.ts';
import type { FlowTimerPayload, Timer } from '#shared/domain/timers/model.ts';
import type { DuePage, TimerBuckets } from '#shared/domain/timers/ports.ts';
import { batchDelete } from './batch.ts';
import { itemMeta, keys } from './keys.ts';
import { tableName } from './table.ts';

const RETENTION_MS = 2 * 24 * 3600_000;
const PAGE = 500;

export const dynamoTimerBuckets = (): TimerBuckets => ({
  async add(minute: number, timer: Timer & { readonly payload: FlowTimerPayload }) {
    await dynamo().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.wheelEntry(timer.payload.storeId, minute, timer.name),
          ...itemMeta('wheelEntry'),
          at: timer.at,
          payload: timer.payload,
          expiresAt: Math.ceil((minute + RETENTION_MS) / 1000),
        },
      }),
    );
  },
  async due(storeId: string, minute: number): Promise<DuePage> {
    const { pk } = keys.wheelEntry(storeId, minute, '');
    const page = await dynamo().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
        ProjectionExpression: 'sk, payload',
        ConsistentRead: true,
        Limit: PAGE,
      }),
    );
    return {
      items: (page.Items ?? []).map((item) => ({ name: String(item.sk), payload: item.payload as FlowTimerPayload })),
    };
  },
  async remove(storeId: string, minute: number, names: readonly string[]) {
    await batchDelete(names.map((name) => keys.wheelEntry(storeId, minute, name)));
  },
});
