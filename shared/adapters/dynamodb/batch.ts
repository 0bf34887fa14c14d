/**
 * Batch reads and writes with DynamoDB's limits (100 keys per `BatchGetItem`, 25 puts per `BatchWriteItem`) and its
 * partial answers: unprocessed keys and items are retried with a growing pause, and a batch still not through after
 * the last retry throws (the caller's queue or client retries the whole operation, which is idempotent).
 */

import { dynamo } from '#shared/adapters/aws-clients.ts';
import { BatchGetCommand, BatchWriteCommand } from '#shared/adapters/dynamodb-client.ts';
import { tableName } from './table.ts';

const GET_LIMIT = 100;
const WRITE_LIMIT = 25;
const RETRIES = 8;
/** Chunks in flight at once: enough to overlap round trips without flooding a table with on-demand capacity. */
const PARALLEL = 8;

const pause = (attempt: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.min(1000, 25 * 2 ** attempt) * (0.5 + Math.random() / 2)));

const chunked = <T>(items: readonly T[], size: number): T[][] => {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
};

/** Runs `work` over `chunks`, at most `PARALLEL` at a time. */
const eachChunk = async <T>(chunks: readonly T[], work: (chunk: T) => Promise<void>) => {
  let next = 0;
  const lane = async () => {
    while (next < chunks.length) {
      const chunk = chunks[next++] as T;
      await work(chunk);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, chunks.length) }, lane));
};

type WriteRequest =
  | { PutRequest: { Item: Record<string, unknown> } }
  | { DeleteRequest: { Key: Record<string, unknown> } };

/** Every write, 25 per call, retrying what DynamoDB leaves unprocessed. */
const batchWrite = async (writes: readonly WriteRequest[]): Promise<void> => {
  const table = tableName();
  await eachChunk(chunked(writes, WRITE_LIMIT), async (chunk) => {
    let requests = [...chunk];
    for (let attempt = 0; requests.length > 0; attempt++) {
      if (attempt > RETRIES) throw new Error(`DynamoDB left ${requests.length} writes unprocessed after retries`);
      if (attempt > 0) await pause(attempt);
      const { UnprocessedItems } = await dynamo().send(new BatchWriteCommand({ RequestItems: { [table]: requests } }));
      requests = (UnprocessedItems?.[table] ?? []) as typeof requests;
    }
  });
};

/** Puts every item (each a full item with its keys). */
export const batchPut = (items: readonly Record<string, unknown>[]): Promise<void> =>
  batchWrite(items.map((Item) => ({ PutRequest: { Item } })));

/** Deletes the items of `keys` (`pk`/`sk` pairs); a missing one is no error. */
export const batchDelete = (keys: readonly { pk: string; sk: string }[]): Promise<void> =>
  batchWrite(keys.map((Key) => ({ DeleteRequest: { Key } })));

/** Reads the items of `keys` (`pk`/`sk` pairs); missing items are simply absent from the answer, in no given order. */
export const batchGet = async (
  keys: readonly { pk: string; sk: string }[],
  options: { projection?: string; names?: Record<string, string> } = {},
): Promise<Record<string, unknown>[]> => {
  const table = tableName();
  const found: Record<string, unknown>[] = [];
  await eachChunk(chunked(keys, GET_LIMIT), async (chunk) => {
    let pending: Record<string, unknown>[] = chunk.map((k) => ({ pk: k.pk, sk: k.sk }));
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > RETRIES) throw new Error(`DynamoDB left ${pending.length} reads unprocessed after retries`);
      if (attempt > 0) await pause(attempt);
      const { Responses, UnprocessedKeys } = await dynamo().send(
        new BatchGetCommand({
          RequestItems: {
            [table]: {
              Keys: pending,
              ConsistentRead: true,
              ...(options.projection ? { ProjectionExpression: options.projection } : {}),
              ...(options.names ? { ExpressionAttributeNames: options.names } : {}),
            },
          },
        }),
      );
      found.push(...(Responses?.[table] ?? []));
      pending = UnprocessedKeys?.[table]?.Keys ?? [];
    }
  });
  return found;
};
