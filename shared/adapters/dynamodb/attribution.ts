/** Attribution records and counters (`shared/domain/attribution`) in the service table. */

import { dynamo } from '#shared/adapters/aws-clients.ts';
import { PutCommand, QueryCommand, UpdateCommand } from '#shared/adapters/dynamodb-client.ts';
import { systemClock } from '#shared/clock.ts';
import {
  type DayCounts,
  type Exposure,
  keepsMonths,
  LATE_CLICK_MS,
  type MonthCounts,
  monthOf,
  type Touch,
  type UnattributedOrder,
} from '#shared/domain/attribution/model.ts';
import type { AttributionStore } from '#shared/domain/attribution/ports.ts';
import { batchDelete, batchGet } from './batch.ts';
import { itemMeta, keys } from './keys.ts';
import { queryStoredItems } from './query.ts';
import { getItem, isConditionFailure, putIfAbsent, tableName } from './table.ts';

/** Marks and clicks are kept 90 days (beyond any influence window or recovery); counted-once keys a week. */
const MARK_TTL_SECONDS = 90 * 86_400;
const ONCE_TTL_SECONDS = 7 * 86_400;

/** How many of a contact's unattributed orders a click looks at (the newest). */
const UNATTRIBUTED_READ = 10;

const expiresAt = (seconds: number) => Math.floor(systemClock.now() / 1000) + seconds;

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

/** Stores known to keep their months (once kept, always: the mark is never removed), remembered by a warm function. */
const keptStores = new Set<string>();

/** How a month counter's sort key starts (`keys.statsMonth`). */
const MONTH_PREFIX = 'MONTH#';

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

  async markUnattributed(storeId, email, order) {
    await dynamo().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.unattributedOrder(storeId, email, order.paidAt, order.orderId),
          ...itemMeta('attribution'),
          order,
          expiresAt: Math.ceil((order.paidAt + LATE_CLICK_MS) / 1000),
        },
      }),
    );
  },

  async unattributedOrders(storeId, email) {
    // The newest few: a contact pays a handful of times a day at most, and older marks are past LATE_CLICK_MS.
    const { Items = [] } = await dynamo().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.unattributedOrder(storeId, email, 0, '').pk },
        ScanIndexForward: false,
        Limit: UNATTRIBUTED_READ,
        ConsistentRead: true,
      }),
    );
    return Items.map((item) => item.order as UnattributedOrder);
  },

  async reconsiderOrder(storeId, orderId, attribution) {
    try {
      await dynamo().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.attributedOrder(storeId, orderId),
          UpdateExpression: 'SET attribution = :attribution',
          ConditionExpression: 'attribution.kind = :none',
          ExpressionAttributeValues: { ':attribution': attribution, ':none': 'none' },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
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

  addTo: (storeId, scope, period, deltas) => addPeriod(storeId, scope, period, deltas),

  async add(storeId, scopes, day, deltas) {
    await Promise.all(
      scopes.flatMap((scope) => [
        addPeriod(storeId, scope, day, deltas),
        ...(keepsMonths(scope) ? [addPeriod(storeId, scope, monthOf(day), deltas)] : []),
      ]),
    );
  },

  days: readDays,

  async months(storeId, scope, from, to) {
    const first = keys.statsMonth(storeId, scope, from);
    const items = await queryStoredItems({
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: {
        ':pk': first.pk,
        ':from': first.sk,
        ':to': keys.statsMonth(storeId, scope, to).sk,
      },
    });
    return items.map((item) => ({ month: String(item.sk).slice(MONTH_PREFIX.length), counts: countsOf(item) }));
  },

  async periods(storeId, wanted) {
    const items = await batchGet(
      wanted.flatMap(({ scope, days, months }) => [
        ...days.map((day) => keys.stats(storeId, scope, day)),
        ...months.map((month) => keys.statsMonth(storeId, scope, month)),
      ]),
    );
    const found = new Map(wanted.map(({ scope }) => [scope, { days: [] as DayCounts[], months: [] as MonthCounts[] }]));
    const scopeOf = new Map(wanted.map(({ scope }) => [keys.stats(storeId, scope, '').pk, scope]));
    for (const item of items) {
      const periods = found.get(scopeOf.get(String(item.pk)) ?? '');
      if (!periods) continue;
      const sk = String(item.sk);
      if (sk.startsWith(MONTH_PREFIX))
        periods.months.push({ month: sk.slice(MONTH_PREFIX.length), counts: countsOf(item) });
      else periods.days.push({ day: sk, counts: countsOf(item) });
    }
    for (const periods of found.values()) {
      periods.days.sort((x, y) => x.day.localeCompare(y.day));
      periods.months.sort((x, y) => x.month.localeCompare(y.month));
    }
    return found;
  },

  async monthsKept(storeId) {
    if (keptStores.has(storeId)) return true;
    const kept = (await getItem(keys.statsMonthsKept(storeId))) !== undefined;
    if (kept) keptStores.add(storeId);
    return kept;
  },

  async deleteScope(storeId, scope) {
    const pk = keys.stats(storeId, scope, '').pk;
    const items = await queryStoredItems({
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': pk },
      ProjectionExpression: 'pk, sk',
    });
    await batchDelete(items.map((item) => ({ pk, sk: String(item.sk) })));
  },

  async rebuildMonths(storeId, scopes) {
    for (const scope of scopes) {
      const days = await readDays(storeId, scope, '0000-01-01', '9999-12-31');
      const months = new Map<string, Record<string, number>>();
      for (const { day, counts } of days) {
        const sums = months.get(monthOf(day)) ?? {};
        for (const [name, n] of Object.entries(counts)) sums[name] = (sums[name] ?? 0) + n;
        months.set(monthOf(day), sums);
      }
      for (const [month, counts] of months) {
        await dynamo().send(
          new PutCommand({
            TableName: tableName(),
            Item: { ...keys.statsMonth(storeId, scope, month), ...itemMeta('stats'), ...counts },
          }),
        );
      }
    }
    await dynamo().send(new PutCommand({ TableName: tableName(), Item: monthsKeptItem(storeId) }));
  },
});

/** The mark of a store whose month counters are whole (a new store has none yet, so its months are). */
export const monthsKeptItem = (storeId: string) => ({ ...keys.statsMonthsKept(storeId), ...itemMeta('stats') });

/** `ADD`s the non-zero `deltas` to a scope's day (`YYYY-MM-DD`) or month (`YYYY-MM`) item (made when absent). */
const addPeriod = async (
  storeId: string,
  scope: string,
  period: string,
  deltas: Readonly<Record<string, number>>,
): Promise<void> => {
  const entries = Object.entries(deltas).filter(([, n]) => n !== 0);
  if (entries.length === 0) return;
  const key = period.length === 7 ? keys.statsMonth(storeId, scope, period) : keys.stats(storeId, scope, period);
  await addCounts(key, entries);
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
