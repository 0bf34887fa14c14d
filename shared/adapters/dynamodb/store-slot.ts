import { randomUUID } from 'node:crypto';
import { dynamo } from '#shared/adapters/aws-clients.ts';
import { DeleteCommand, PutCommand } from '#shared/adapters/dynamodb-client.ts';
import type { Clock } from '#shared/domain/clock.ts';
import type { StoreSlot } from '#shared/domain/store-slot.ts';
import { itemMeta, keys } from './keys.ts';
import { ignoreConditionFailure, isConditionFailure, tableName } from './table.ts';

/** The store slots: the import's start (about once every 10 seconds), the synchronous backtest (one at a time). */
export type StoreSlotKind = 'importSlot' | 'backtestSlot';

/**
 * One conditional put: the slot is free when absent or expired, and claiming it sets when it frees up again. Each claim
 * writes its own id; a release is a delete conditioned on that id, so it never frees a slot another request has claimed
 * since.
 */
export const dynamoStoreSlot = (clock: Clock, kind: StoreSlotKind): StoreSlot => ({
  async claim(storeId, seconds) {
    const now = clock.now();
    const claimId = randomUUID();
    try {
      await dynamo().send(
        new PutCommand({
          TableName: tableName(),
          Item: {
            ...keys[kind](storeId),
            ...itemMeta(kind),
            until: now + seconds * 1000,
            claimId,
            expiresAt: Math.floor(now / 1000) + seconds + 60,
          },
          ConditionExpression: 'attribute_not_exists(pk) OR #until <= :now',
          ExpressionAttributeNames: { '#until': 'until' },
          ExpressionAttributeValues: { ':now': now },
        }),
      );
      return { claimed: true, claimId };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      return { claimed: false, retryAfterSeconds: seconds };
    }
  },
  async release(storeId, claimId) {
    await dynamo()
      .send(
        new DeleteCommand({
          TableName: tableName(),
          Key: keys[kind](storeId),
          ConditionExpression: 'claimId = :claimId',
          ExpressionAttributeValues: { ':claimId': claimId },
        }),
      )
      .catch(ignoreConditionFailure);
  },
});
