/** Attribution records and counters (`shared/domain/attribution`) in the service table. */
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '#shared/adapters/aws-clients.ts';
import type { Touch } from '#shared/domain/attribution/model.ts';
import type { AttributionStore } from '#shared/domain/attribution/ports.ts';
import { batchGet } from './batch.ts';
import { itemMeta, keys } from './keys.ts';
import { queryStoredItems } from './query.ts';
import { getItem, isConditionFailure, putIfAbsent, tableName } from './table.ts';

/** Marks and clicks are kept 90 days (beyond any influence window or recovery); counted-once keys a week. */
const MARK_TTL_SECONDS = 90 * 86_400;
const ONCE_TTL_SECONDS = 7 * 86_400;

const expiresAt = (seconds: number) => Math.floor(Date.now() / 1000) + seconds;

/** Puts `touch` at `key` unless a later one is there already. */
const putLatest = async (key: { pk: string; sk: string }, touch: Touch) => {
  try {
    await dynamo().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...key, ...itemMeta('attribution'), touch, at: touch.at, expiresAt: expiresAt(MARK_TTL_SECONDS) },
        ConditionExpression: 'attribute_not_exists(pk) OR #at <= :at',
        ExpressionAttributeNames: { '#at': 'at' },
        ExpressionAttributeValues: { ':at': touch.at },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
};

export const dynamoAttribution = (): AttributionStore => ({
  markSubject: (storeId, subject, touch) => putLatest(keys.emailedSubject(storeId, subject.type, subject.id), touch),

  async latestForSubjects(storeId, subjects) {
    const found = await batchGet(subjects.map((s) => keys.emailedSubject(storeId, s.type, s.id)));
    const touches = found.map((item) => item.touch as Touch).sort((a, b) => b.at - a.at);
    return touches[0];
  },

  markClick: (storeId, email, touch) => putLatest(keys.lastClick(storeId, email), touch),

  async lastClick(storeId, email) {
    const item = await getItem(keys.lastClick(storeId, email));
    return item?.touch as Touch | undefined;
  },

  claimOrder: (storeId, orderId, attribution) =>
    putIfAbsent({ ...keys.attributedOrder(storeId, orderId), ...itemMeta('attribution'), attribution }),

  claimOnce: (storeId, key) =>
    putIfAbsent({
      ...keys.countedOnce(storeId, key),
      ...itemMeta('attribution'),
      expiresAt: expiresAt(ONCE_TTL_SECONDS),
    }),

  async add(storeId, scopes, day, deltas) {
    const entries = Object.entries(deltas).filter(([, n]) => n !== 0);
    if (entries.length === 0) return;
    const names = Object.fromEntries(entries.map(([name], i) => [`#c${i}`, name]));
    const values = Object.fromEntries(entries.map(([, n], i) => [`:c${i}`, n]));
    await Promise.all(
      scopes.map((scope) =>
        dynamo().send(
          new UpdateCommand({
            TableName: tableName(),
            Key: keys.stats(storeId, scope, day),
            UpdateExpression: `ADD ${entries.map((_, i) => `#c${i} :c${i}`).join(', ')} SET entity = :entity, #schema = :schema`,
            ExpressionAttributeNames: { ...names, '#schema': 'schema' },
            ExpressionAttributeValues: { ...values, ':entity': 'stats', ':schema': 1 },
          }),
        ),
      ),
    );
  },

  async days(storeId, scope, from, to) {
    const items = await queryStoredItems({
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': keys.stats(storeId, scope, from).pk, ':from': from, ':to': to },
    });
    return items.map(({ pk: _pk, sk, entity: _entity, schema: _schema, ...counts }) => ({
      day: String(sk),
      counts: Object.fromEntries(Object.entries(counts).map(([name, n]) => [name, Number(n)])),
    }));
  },
});
