/**
 * Queries, with DynamoDB's paging in one place: `queryItems` follows `LastEvaluatedKey` to the end (a call returns at
 * most 1 MB), `queryPage` answers one page, newest first, with an opaque cursor.
 */

import { dynamo } from '#shared/adapters/aws-clients.ts';
import { QueryCommand, type QueryCommandInput } from '#shared/adapters/dynamodb-client.ts';
import { validationError } from '#shared/errors.ts';
import { withoutMeta } from './keys.ts';
import { tableName } from './table.ts';

export type Query = Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>;

/** Every item a query matches, following pagination, as stored (keys included). */
export const queryStoredItems = async (query: Query): Promise<Record<string, unknown>[]> => {
  const items: Record<string, unknown>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(new QueryCommand({ ...query, TableName: tableName(), ExclusiveStartKey }));
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
};

/** Every item a query matches, following pagination, stripped of its storage attributes. */
export const queryItems = async <T>(query: Query): Promise<T[]> =>
  (await queryStoredItems(query)).map((item) => withoutMeta<T>(item));

/** Every item of one table partition, read consistently (a list read right after a write sees it). */
export const queryAll = <T>(pk: string): Promise<T[]> =>
  queryItems<T>({ KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk }, ConsistentRead: true });

/** Every item of one index partition (index reads are eventually consistent). */
export const queryIndex = <T>(index: 'gsi1' | 'gsi2', partition: string): Promise<T[]> =>
  queryItems<T>({
    IndexName: index,
    KeyConditionExpression: `${index}pk = :pk`,
    ExpressionAttributeValues: { ':pk': partition },
  });

const encodeCursor = (key: Record<string, unknown>) => Buffer.from(JSON.stringify(key)).toString('base64url');

/**
 * The start key is rebuilt from exactly the attributes the list's query needs (all strings): a well-formed cursor of
 * another list carries other attributes, which DynamoDB would refuse with an error the caller could not act on.
 */
const decodeCursor = (
  cursor: string,
  attributes: readonly string[],
  check: (key: Record<string, string>) => boolean,
): Record<string, string> => {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
      const raw = parsed as Record<string, unknown>;
      const key: Record<string, string> = {};
      for (const name of attributes) {
        const value = raw[name];
        if (typeof value !== 'string') throw new Error('not a cursor');
        key[name] = value;
      }
      if (Object.keys(raw).length === attributes.length && check(key)) return key;
    }
  } catch {
    // fall through
  }
  throw validationError('cursor is not a cursor of this list');
};

/**
 * One page of a table or index partition, newest first (`ascending`: oldest first). Page cursors are the position,
 * opaque to callers; one of another list (or store) is refused. On an index, `itemPrefix` (when given) is what the
 * table `pk` of the cursor's item must start with. On the table, `sortPrefix` keeps the items whose `sk` starts with it.
 */
export const queryPage = async <T>(options: {
  index?: 'gsi1';
  partition: string;
  page: { limit: number; cursor?: string };
  itemPrefix?: string;
  sortPrefix?: string;
  ascending?: boolean;
}): Promise<{ items: T[]; nextCursor?: string }> => {
  const { index, partition, page, itemPrefix, sortPrefix } = options;
  const partitionKey = index ? `${index}pk` : 'pk';
  const attributes = index ? ['pk', 'sk', `${index}pk`, `${index}sk`] : ['pk', 'sk'];
  const bySort = sortPrefix !== undefined && !index;
  const result = await dynamo().send(
    new QueryCommand({
      TableName: tableName(),
      ...(index ? { IndexName: index } : {}),
      KeyConditionExpression: `${partitionKey} = :pk${bySort ? ' AND begins_with(sk, :prefix)' : ''}`,
      ExpressionAttributeValues: { ':pk': partition, ...(bySort ? { ':prefix': sortPrefix } : {}) },
      ScanIndexForward: options.ascending === true,
      Limit: page.limit,
      ...(page.cursor
        ? {
            ExclusiveStartKey: decodeCursor(
              page.cursor,
              attributes,
              (key) =>
                key[partitionKey] === partition &&
                (itemPrefix === undefined || (key.pk ?? '').startsWith(itemPrefix)) &&
                (!bySort || (key.sk ?? '').startsWith(sortPrefix)),
            ),
          }
        : {}),
    }),
  );
  const items = (result.Items ?? []).map((item) => withoutMeta<T>(item));
  return result.LastEvaluatedKey ? { items, nextCursor: encodeCursor(result.LastEvaluatedKey) } : { items };
};
