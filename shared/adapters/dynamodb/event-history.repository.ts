import { PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '#shared/adapters/aws-clients.ts';
import type { EventHistory } from '#shared/domain/ingest/event-history.ts';
import { historyDay } from '#shared/domain/ingest/event-history.ts';
import { HISTORY_PACK_PREFIX, itemMeta, keys } from './keys.ts';
import { tableName } from './table.ts';

/** DynamoDB's refusal of an update that would take the item past 400 KB. */
const tooLarge = (error: unknown) =>
  error instanceof Error && error.name === 'ValidationException' && /item size/i.test(error.message);

/**
 * The event history (docs/backtest.md): per store and UTC day, one item per minute holding a set of packs (binary,
 * compressed; `ADD` to a binary set, so the same pack twice is kept once), removed by TTL (`expiresAt`). A pack the
 * minute's item cannot take (400 KB) is put as an item of its own.
 */
export const dynamoEventHistory = (clock: { now(): number } = { now: () => Date.now() }): EventHistory => ({
  async append(storeId, minute, pack, expiresAt) {
    const day = historyDay(minute);
    try {
      await dynamo().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.eventHistory(storeId, day, minute),
          UpdateExpression: 'ADD #packs :pack SET expiresAt = :expiresAt, entity = :entity, #schema = :schema',
          ExpressionAttributeNames: { '#packs': 'packs', '#schema': 'schema' },
          ExpressionAttributeValues: {
            ':pack': new Set([pack.bytes]),
            ':expiresAt': expiresAt,
            ':entity': itemMeta('eventHistory').entity,
            ':schema': itemMeta('eventHistory').schema,
          },
        }),
      );
    } catch (error) {
      if (!tooLarge(error)) throw error;
      await dynamo().send(
        new PutCommand({
          TableName: tableName(),
          Item: {
            ...keys.eventHistory(storeId, day, minute, { at: pack.firstAt, sourceId: pack.firstSourceId }),
            ...itemMeta('eventHistory'),
            packs: new Set([pack.bytes]),
            expiresAt,
          },
        }),
      );
    }
  },
  async page(storeId, day, after) {
    const { pk } = keys.eventHistory(storeId, day, 0);
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
