/** The contact export's reads: contacts in creation order (gsi1) and the remembered page starts. */
import { createHash } from 'node:crypto';
import { dynamo } from '#shared/adapters/aws-clients.ts';
import { PutCommand, QueryCommand } from '#shared/adapters/dynamodb-client.ts';
import type { Bounds, ContactDirectory, ExportPositions, Position } from '#shared/domain/contacts/export-contacts.ts';
import type { Customer } from '#shared/domain/customers/model.ts';
import { itemMeta, keys, withoutMeta } from './keys.ts';
import { getItem, tableName } from './table.ts';

/** Page starts are kept a day; the total a minute (pages taken minutes apart may see different totals). */
const POSITION_TTL_SECONDS = 24 * 3600;
const COUNT_TTL_MS = 60_000;

const rangeQuery = (storeId: string, bounds: Bounds) => {
  const range = keys.customersCreatedBetween(storeId, bounds.start, bounds.end);
  return {
    TableName: tableName(),
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': range.gsi1pk, ':from': range.from, ':to': range.to },
  };
};

/** The position just after an item: its table and index keys, as DynamoDB's ExclusiveStartKey wants them. */
const positionOf = (item: Record<string, unknown>): Position => ({
  pk: item.pk,
  sk: item.sk,
  gsi1pk: item.gsi1pk,
  gsi1sk: item.gsi1sk,
});

/**
 * Reads up to `limit` items from `after` on. DynamoDB returns at most 1 MB per call, so this loops until it has
 * `limit` items or the range ends.
 */
const read = async (
  storeId: string,
  bounds: Bounds,
  limit: number,
  after: Position | undefined,
  keysOnly: boolean,
): Promise<{ items: Record<string, unknown>[]; ended: boolean }> => {
  const items: Record<string, unknown>[] = [];
  let start = after;
  for (;;) {
    const page = await dynamo().send(
      new QueryCommand({
        ...rangeQuery(storeId, bounds),
        Limit: limit - items.length,
        ...(keysOnly ? { ProjectionExpression: 'pk, sk, gsi1pk, gsi1sk' } : {}),
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    items.push(...(page.Items ?? []));
    if (!page.LastEvaluatedKey) return { items, ended: true };
    if (items.length >= limit) return { items, ended: false };
    start = page.LastEvaluatedKey;
  }
};

export const dynamoContactDirectory = (): ContactDirectory => ({
  async count(storeId, bounds) {
    let total = 0;
    let start: Record<string, unknown> | undefined;
    do {
      const page = await dynamo().send(
        new QueryCommand({
          ...rangeQuery(storeId, bounds),
          Select: 'COUNT',
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      total += page.Count ?? 0;
      start = page.LastEvaluatedKey;
    } while (start);
    return total;
  },

  async page(storeId, bounds, limit, after) {
    const { items, ended } = await read(storeId, bounds, limit, after, false);
    const last = items.at(-1);
    return {
      items: items.map((item) => withoutMeta<Customer>(item)),
      ...(last && !ended ? { next: positionOf(last) } : {}),
    };
  },

  async skip(storeId, bounds, count, after) {
    const { items } = await read(storeId, bounds, count, after, true);
    const last = items.at(-1);
    return items.length === count && last ? positionOf(last) : undefined;
  },
});

const hashOf = (queryKey: string) => createHash('sha256').update(queryKey).digest('base64url').slice(0, 22);

export const dynamoExportPositions = (clock: { now(): number }): ExportPositions => ({
  async nearest(storeId, queryKey, page) {
    if (page <= 1) return { page: 1 };
    const { pk } = keys.exportPositions(storeId, hashOf(queryKey));
    const result = await dynamo().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :first AND :upTo',
        ExpressionAttributeValues: {
          ':pk': pk,
          ':first': keys.exportPage(storeId, '', 2).sk,
          ':upTo': keys.exportPage(storeId, '', page).sk,
        },
        ScanIndexForward: false,
        Limit: 1,
      }),
    );
    const [item] = result.Items ?? [];
    const live = item && Number(item.expiresAt) > clock.now() / 1000;
    return live ? { page: Number(item.page), position: item.position as Position } : { page: 1 };
  },

  async remember(storeId, queryKey, page, position) {
    await dynamo().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.exportPage(storeId, hashOf(queryKey), page),
          ...itemMeta('exportPosition'),
          page,
          position,
          expiresAt: Math.floor(clock.now() / 1000) + POSITION_TTL_SECONDS,
        },
      }),
    );
  },

  async cachedCount(storeId, queryKey) {
    const item = await getItem(keys.exportCount(storeId, hashOf(queryKey)), false);
    return item && Number(item.until) > clock.now() ? Number(item.count) : undefined;
  },

  async rememberCount(storeId, queryKey, count) {
    const now = clock.now();
    await dynamo().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.exportCount(storeId, hashOf(queryKey)),
          ...itemMeta('exportPosition'),
          count,
          until: now + COUNT_TTL_MS,
          expiresAt: Math.floor(now / 1000) + POSITION_TTL_SECONDS,
        },
      }),
    );
  },
});
