import { createHash } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '#shared/adapters/aws-clients.ts';
import type { EventHistory } from '#shared/domain/ingest/event-history.ts';
import { historyDay } from '#shared/domain/ingest/event-history.ts';
import { directPuts, type ItemWriter } from './coalesced.ts';
import { HISTORY_PACK_PREFIX, itemMeta, keys } from './keys.ts';
import { tableName } from './table.ts';

/** A pack's name in its key: the same events pack to the same bytes, so a batch delivered again is the same item. */
const packHash = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('base64url').slice(0, 16);

/**
 * The event history (docs/backtest.md): per store and UTC day, one item per pack (binary, compressed; the `packs` set
 * of one), removed by TTL (`expiresAt`). A put of a new item costs the pack's size alone (issue 16: adding each pack to
 * a minute's item cost the whole item's size). The day's items written before, a minute's set of packs each, are
 * read the same way (their sort keys begin with `PACK#` too). `writes`: where the packs are put (the ingest worker
 * gathers a batch's packs, one per store and day, into one `BatchWriteItem`: `coalesced.ts`).
 */
export const dynamoEventHistory = (
  clock: { now(): number } = { now: () => Date.now() },
  writes: ItemWriter = directPuts,
): EventHistory => ({
  async put(storeId, pack, expiresAt) {
    await writes.put([
      {
        ...keys.historyPack(storeId, historyDay(pack.firstAt), pack.firstAt, packHash(pack.bytes)),
        ...itemMeta('eventHistory'),
        packs: new Set([pack.bytes]),
        expiresAt,
      },
    ]);
  },
  async page(storeId, day, after) {
    const { pk } = keys.eventHistory(storeId, day);
    const page = await dynamo().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :pack)',
        // TTL deletes up to days late: an item past its retention is not history any more.
        FilterExpression: 'expiresAt > :now',
        ExpressionAttributeValues: {
          ':pk': pk,
          ':pack': HISTORY_PACK_PREFIX,
          ':now': Math.floor(clock.now() / 1000),
        },
        ProjectionExpression: '#packs',
        ExpressionAttributeNames: { '#packs': 'packs' },
        ...(after ? { ExclusiveStartKey: after as Record<string, unknown> } : {}),
      }),
    );
    const packs = (page.Items ?? []).flatMap((item) => [...((item.packs as Set<Uint8Array> | undefined) ?? [])]);
    return page.LastEvaluatedKey ? { packs, next: page.LastEvaluatedKey } : { packs };
  },
});
