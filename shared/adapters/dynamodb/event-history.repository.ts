import { createHash } from 'node:crypto';
import { dynamo } from '#shared/adapters/aws-clients.ts';
import { QueryCommand } from '#shared/adapters/dynamodb-client.ts';
import { systemClock } from '#shared/clock.ts';
import type { EventHistory } from '#shared/domain/ingest/event-history.ts';
import { historyDay } from '#shared/domain/ingest/event-history.ts';
import type { CompactableHistory } from '#shared/domain/ingest/history-compaction.ts';
import type { Pack } from '#shared/domain/ingest/history-pack.ts';
import { batchDelete } from './batch.ts';
import { directPuts, type ItemWriter } from './coalesced.ts';
import { HISTORY_PACK_PREFIX, itemMeta, keys } from './keys.ts';
import { tableName } from './table.ts';

/** A pack's name in its key: the same events pack to the same bytes, so a batch delivered again is the same item. */
const packHash = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('base64url').slice(0, 16);

/**
 * The event history (docs/backtest.md): per store and UTC day, one item per pack (binary, compressed; the `packs` set
 * of one), removed by TTL (`expiresAt`). A put of a new item costs the pack's size alone (adding each pack to
 * a minute's item cost the whole item's size). The day's items written before, a minute's set of packs each, are
 * read the same way (their sort keys begin with `PACK#` too). `writes`: where the packs are put (the ingest worker
 * gathers a batch's packs, one per store and day, into one `BatchWriteItem`: `coalesced.ts`).
 */
const packKey = (storeId: string, pack: Pack) =>
  keys.historyPack(storeId, historyDay(pack.firstAt), pack.firstAt, packHash(pack.bytes));

/** One page of a store's day of items not past retention, with `projection` (its names in `names`). */
const queryDay = (
  clock: { now(): number },
  storeId: string,
  day: string,
  after: unknown,
  projection: string,
  names: Record<string, string>,
) =>
  dynamo().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :pack)',
      // TTL deletes up to days late: an item past its retention is not history any more.
      FilterExpression: 'expiresAt > :now',
      ExpressionAttributeValues: {
        ':pk': keys.eventHistory(storeId, day).pk,
        ':pack': HISTORY_PACK_PREFIX,
        ':now': Math.floor(clock.now() / 1000),
      },
      ProjectionExpression: projection,
      ExpressionAttributeNames: names,
      ...(after ? { ExclusiveStartKey: after as Record<string, unknown> } : {}),
    }),
  );

const packsOf = (item: Record<string, unknown>) => [...((item.packs as Set<Uint8Array> | undefined) ?? [])];

export const dynamoEventHistory = (
  clock: { now(): number } = systemClock,
  writes: ItemWriter = directPuts,
): EventHistory => ({
  async put(storeId, pack, expiresAt) {
    await writes.put([
      {
        ...packKey(storeId, pack),
        ...itemMeta('eventHistory'),
        packs: new Set([pack.bytes]),
        expiresAt,
      },
    ]);
  },
  async page(storeId, day, after) {
    const page = await queryDay(clock, storeId, day, after, '#packs', { '#packs': 'packs' });
    const packs = (page.Items ?? []).flatMap(packsOf);
    return page.LastEvaluatedKey ? { packs, next: page.LastEvaluatedKey } : { packs };
  },
});

/**
 * The history as its daily compaction reads and rewrites it (`history-compaction.ts`): a day's items by sort key (an
 * item's time is the 15 digits after `PACK#`, in every layout: a pack's first event, an old item's minute), puts as
 * the worker's (one `PutItem` each: a day holds a few merged packs), deletes 25 to a `BatchWriteItem`.
 */
export const dynamoCompactableHistory = (clock: { now(): number } = systemClock): CompactableHistory => {
  const history = dynamoEventHistory(clock);
  return {
    async items(storeId, day, after) {
      const page = await queryDay(clock, storeId, day, after, 'sk, #packs', { '#packs': 'packs' });
      const items = (page.Items ?? []).map((item) => {
        const id = String(item.sk);
        return {
          id,
          notBefore: Number(id.slice(HISTORY_PACK_PREFIX.length, HISTORY_PACK_PREFIX.length + 15)),
          packs: packsOf(item),
        };
      });
      return page.LastEvaluatedKey ? { items, next: page.LastEvaluatedKey } : { items };
    },
    idOf: (pack) => packKey('', pack).sk,
    put: history.put,
    async remove(storeId, day, ids) {
      const { pk } = keys.eventHistory(storeId, day);
      await batchDelete(ids.map((sk) => ({ pk, sk })));
    },
  };
};
