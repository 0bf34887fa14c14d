/** Attribution records and counters (`shared/domain/attribution`) in the service table. */

import { dynamo } from '#shared/adapters/aws-clients.ts';
import { PutCommand, UpdateCommand } from '#shared/adapters/dynamodb-client.ts';
import type { DayCounts, Exposure, Touch } from '#shared/domain/attribution/model.ts';
import type { AttributionStore } from '#shared/domain/attribution/ports.ts';
import { batchDelete, batchGet } from './batch.ts';
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

const readDays: AttributionStore['days'] = async (storeId, scope, from, to) => {
  const items = await queryStoredItems({
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': keys.stats(storeId, scope, from).pk, ':from': from, ':to': to },
  });
  return items.map((item) => ({ day: String(item.sk), counts: countsOf(item) }));
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

  async markExposure(storeId, email, exposure) {
    // A later run of the flow replaces the mark (and its revenue so far): runs are the groups' units.
    await dynamo().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.exposure(storeId, email, exposure.flowId),
          ...itemMeta('attribution'),
          exposure,
          expiresAt: expiresAt(MARK_TTL_SECONDS),
        },
      }),
    );
  },

  async exposuresOf(storeId, email) {
    const items = await queryStoredItems({
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.exposure(storeId, email, '').pk },
    });
    return items.map((item) => item.exposure as Exposure);
  },

  async addExposureRevenue(storeId, email, exposure, currency, amount) {
    try {
      const answer = await dynamo().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.exposure(storeId, email, exposure.flowId),
          UpdateExpression: 'ADD #revenue :amount',
          ConditionExpression: 'exposure.runId = :runId',
          ExpressionAttributeNames: { '#revenue': `revenue_${currency}` },
          ExpressionAttributeValues: { ':amount': amount, ':runId': exposure.runId },
          ReturnValues: 'UPDATED_OLD',
        }),
      );
      return Number(answer.Attributes?.[`revenue_${currency}`] ?? 0);
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  },

  claimOrder: (storeId, orderId, attribution) =>
    putIfAbsent({ ...keys.attributedOrder(storeId, orderId), ...itemMeta('attribution'), attribution }),

  claimOnce: (storeId, key) =>
    putIfAbsent({
      ...keys.countedOnce(storeId, key),
      ...itemMeta('attribution'),
      expiresAt: expiresAt(ONCE_TTL_SECONDS),
    }),

  addTo: (storeId, scope, day, deltas) => addDay(storeId, scope, day, deltas),

  async add(storeId, scopes, day, deltas) {
    await Promise.all(scopes.map((scope) => addDay(storeId, scope, day, deltas)));
  },

  days: readDays,

  async periods(storeId, wanted) {
    const items = await batchGet(
      wanted.flatMap(({ scope, days }) => days.map((day) => keys.stats(storeId, scope, day))),
    );
    const found = new Map(wanted.map(({ scope }) => [scope, [] as DayCounts[]]));
    const scopeOf = new Map(wanted.map(({ scope }) => [keys.stats(storeId, scope, '').pk, scope]));
    for (const item of items) {
      found.get(scopeOf.get(String(item.pk)) ?? '')?.push({ day: String(item.sk), counts: countsOf(item) });
    }
    for (const days of found.values()) days.sort((x, y) => x.day.localeCompare(y.day));
    return found;
  },

  async deleteScope(storeId, scope) {
    const pk = keys.stats(storeId, scope, '').pk;
    const items = await queryStoredItems({
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': pk },
      ProjectionExpression: 'pk, sk',
    });
    // Every item of the partition: its days, and the month items written before issue 16.
    await batchDelete(items.map((item) => ({ pk, sk: String(item.sk) })));
  },
});

/** `ADD`s the non-zero `deltas` to a scope's day (`YYYY-MM-DD`) item (made when absent). */
const addDay = async (
  storeId: string,
  scope: string,
  day: string,
  deltas: Readonly<Record<string, number>>,
): Promise<void> => {
  const entries = Object.entries(deltas).filter(([, n]) => n !== 0);
  if (entries.length === 0) return;
  await addCounts(keys.stats(storeId, scope, day), entries);
};

/** `ADD`s each counter of `entries` to the item at `key` (made when absent). */
const addCounts = (key: { pk: string; sk: string }, entries: readonly [string, number][]) => {
  const names = Object.fromEntries(entries.map(([name], i) => [`#c${i}`, name]));
  const values = Object.fromEntries(entries.map(([, n], i) => [`:c${i}`, n]));
  return dynamo().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: key,
      UpdateExpression: `ADD ${entries.map((_, i) => `#c${i} :c${i}`).join(', ')} SET entity = :entity, #schema = :schema`,
      ExpressionAttributeNames: { ...names, '#schema': 'schema' },
      ExpressionAttributeValues: { ...values, ':entity': 'stats', ':schema': 1 },
    }),
  );
};

/** A counter item's counts (every attribute but its keys and meta). */
const countsOf = ({ pk: _pk, sk: _sk, entity: _entity, schema: _schema, ...counts }: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(counts).map(([name, n]) => [name, Number(n)]));
