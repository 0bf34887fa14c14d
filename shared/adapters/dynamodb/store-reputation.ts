/** The sending guard's counters (`shared/domain/email/reputation.ts`): one item per store and UTC day. */

import { dynamo } from '#shared/adapters/aws-clients.ts';
import { DeleteCommand, PutCommand, UpdateCommand } from '#shared/adapters/dynamodb-client.ts';
import type { ReputationCounts, StandingAnnouncements, StoreReputation } from '#shared/domain/email/reputation.ts';
import { batchGet } from './batch.ts';
import { keys } from './keys.ts';
import { getItem, isConditionFailure, tableName } from './table.ts';

const dayStart = (day: string) => Date.UTC(Number(day.slice(0, 4)), Number(day.slice(4, 6)) - 1, Number(day.slice(6)));

export const dynamoStoreReputation = (): StoreReputation => ({
  async count(storeId, day, event, n = 1) {
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.reputation(storeId, day),
        UpdateExpression: 'ADD #event :one SET expiresAt = if_not_exists(expiresAt, :ttl), entity = :entity',
        ExpressionAttributeNames: { '#event': event },
        // Kept a week: the guard reads two days.
        ExpressionAttributeValues: {
          ':one': n,
          ':ttl': Math.floor(dayStart(day) / 1000) + 7 * 86_400,
          ':entity': 'reputation',
        },
      }),
    );
  },
  async counts(storeId, days): Promise<ReputationCounts> {
    const items = await batchGet(days.map((day) => keys.reputation(storeId, day)));
    const sum = (name: string) => items.reduce((total, item) => total + (Number(item[name]) || 0), 0);
    return { delivered: sum('delivered'), bounced: sum('bounced'), complained: sum('complained') };
  },
  async reset(storeId, days) {
    for (const day of days) {
      await dynamo().send(new DeleteCommand({ TableName: tableName(), Key: keys.reputation(storeId, day) }));
    }
  },
});

/** What the store's `store/sending_paused` webhooks last announced: one item per store, changed conditionally. */
export const dynamoStandingAnnouncements = (): StandingAnnouncements => ({
  async last(storeId) {
    const item = await getItem(keys.standingAnnounced(storeId));
    return { paused: item?.paused === true, version: Number(item?.version ?? 0) };
  },
  async record(storeId, paused, version) {
    try {
      await dynamo().send(
        new PutCommand({
          TableName: tableName(),
          Item: { ...keys.standingAnnounced(storeId), entity: 'reputation', paused, version },
          ConditionExpression: version === 1 ? 'attribute_not_exists(pk)' : 'version = :previous',
          ...(version === 1 ? {} : { ExpressionAttributeValues: { ':previous': version - 1 } }),
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  },
});
