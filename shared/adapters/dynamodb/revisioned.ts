import { dynamo } from '#shared/adapters/aws-clients.ts';
import { PutCommand } from '#shared/adapters/dynamodb-client.ts';
import { type Repository, RevisionConflict } from '#shared/domain/repository.ts';
import { type ItemReader, readRecord } from './coalesced.ts';
import { type Entity, itemMeta } from './keys.ts';
import { getRecord, isConditionFailure, tableName } from './table.ts';

/**
 * Puts an item whose stored `revision` must still be `expectedRevision` (0: the item must not exist). One write;
 * a lost race surfaces as `RevisionConflict` so the use case re-reads and re-applies. With `returnOld`, answers the item
 * it replaced.
 */
export async function putRevisioned(
  item: Record<string, unknown>,
  expectedRevision: number,
  what: string,
  returnOld?: false,
): Promise<undefined>;
export async function putRevisioned(
  item: Record<string, unknown>,
  expectedRevision: number,
  what: string,
  returnOld: true,
): Promise<Record<string, unknown> | undefined>;
export async function putRevisioned(
  item: Record<string, unknown>,
  expectedRevision: number,
  what: string,
  returnOld = false,
): Promise<Record<string, unknown> | undefined> {
  try {
    const { Attributes } = await dynamo().send(
      new PutCommand({
        TableName: tableName(),
        Item: item,
        ...(returnOld ? { ReturnValues: 'ALL_OLD' as const } : {}),
        ...(expectedRevision === 0
          ? { ConditionExpression: 'attribute_not_exists(pk)' }
          : {
              ConditionExpression: 'revision = :expected',
              ExpressionAttributeValues: { ':expected': expectedRevision },
            }),
      }),
    );
    return Attributes;
  } catch (error) {
    if (isConditionFailure(error)) throw new RevisionConflict(what);
    throw error;
  }
}

type Key = { pk: string; sk: string };

/**
 * A repository of revisioned records of one entity: consistent reads (the worker re-reads what it just wrote),
 * conditional writes, and whatever index keys `indexKeys` adds to the item.
 */
export const revisionedRepository = <T extends { storeId: string; revision: number }>(options: {
  entity: Entity;
  key: (storeId: string, id: string) => Key;
  idOf: (record: T) => string;
  indexKeys?: (record: T) => Record<string, string>;
  /** After a write, with the item it replaced (undefined for a new record): to keep derived items such as counters. */
  afterSave?: (record: T, replaced: Record<string, unknown> | undefined) => Promise<void>;
  /** Where `get` reads (default `getItem`; the flow and ingest workers gather their batch's reads, `coalesced.ts`). */
  reads?: ItemReader | undefined;
}): Repository<T> => ({
  get: (storeId: string, id: string) =>
    options.reads ? readRecord<T>(options.reads, options.key(storeId, id)) : getRecord<T>(options.key(storeId, id)),
  async save(record: T, expectedRevision: number) {
    const item = {
      ...options.key(record.storeId, options.idOf(record)),
      ...options.indexKeys?.(record),
      ...itemMeta(options.entity),
      ...record,
    };
    const what = `${options.entity} ${options.idOf(record)}`;
    if (!options.afterSave) return putRevisioned(item, expectedRevision, what);
    await options.afterSave(record, await putRevisioned(item, expectedRevision, what, true));
  },
});
