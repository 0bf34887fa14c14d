/**
 * The timer wheel's buckets (`shared/domain/timers/wheel.ts`): one partition per store and due minute, one item per
 * wait (keyed by the timer's name, so setting it again overwrites it), expiring two days after the minute. A counter
 * per store (`keys.waitingRuns`) holds how many waits it keeps: a new entry is counted under the cap (one conditional
 * ADD) or taken back, a released page is subtracted. A tick delivered twice may subtract a page twice, so the count can
 * only err low, never lock a store out.
 */

import { dynamo } from '#shared/adapters/aws-clients.ts';
import { DeleteCommand, PutCommand, QueryCommand, UpdateCommand } from '#shared/adapters/dynamodb-client.ts';
import type { Timer, WheelPayload } from '#shared/domain/timers/model.ts';
import type { DuePage, TimerBuckets } from '#shared/domain/timers/ports.ts';
import { batchDelete } from './batch.ts';
import { itemMeta, keys } from './keys.ts';
import { isConditionFailure, tableName } from './table.ts';

/** Adds `delta` to the store's count of waits; with a `cap`, only if the count stays within it (false if not). */
const count = async (storeId: string, delta: number, cap?: number): Promise<boolean> => {
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.waitingRuns(storeId),
        UpdateExpression: 'ADD waiting :delta SET entity = :entity',
        ...(cap === undefined ? {} : { ConditionExpression: 'attribute_not_exists(waiting) OR waiting < :cap' }),
        ExpressionAttributeValues: {
          ':delta': delta,
          ':entity': 'waitingRuns',
          ...(cap === undefined ? {} : { ':cap': cap }),
        },
      }),
    );
    return true;
  } catch (error) {
    if (cap !== undefined && isConditionFailure(error)) return false;
    throw error;
  }
};

const RETENTION_MS = 2 * 24 * 3600_000;
const PAGE = 500;

export const dynamoTimerBuckets = (): TimerBuckets => ({
  async add(minute: number, timer: Timer & { readonly payload: WheelPayload }, cap?: number) {
    const key = keys.wheelEntry(timer.payload.storeId, minute, timer.name);
    const item = {
      ...key,
      ...itemMeta('wheelEntry'),
      at: timer.at,
      payload: timer.payload,
      expiresAt: Math.ceil((minute + RETENTION_MS) / 1000),
    };
    // One write either way: the old item comes back when the wait was kept already (a retry, or set again).
    const { Attributes } = await dynamo().send(
      new PutCommand({ TableName: tableName(), Item: item, ReturnValues: 'ALL_OLD' }),
    );
    if (Attributes || cap === undefined) return true;
    if (await count(timer.payload.storeId, 1, cap)) return true;
    await dynamo().send(new DeleteCommand({ TableName: tableName(), Key: key }));
    return false;
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
      items: (page.Items ?? []).map((item) => ({ name: String(item.sk), payload: item.payload as WheelPayload })),
    };
  },
  async remove(storeId: string, minute: number, names: readonly string[], counted: number) {
    await batchDelete(names.map((name) => keys.wheelEntry(storeId, minute, name)));
    if (counted > 0) await count(storeId, -counted);
  },
});
