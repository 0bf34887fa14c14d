/**
 * A store's GCRA item (`tat`: the time its reservations take up to), for limits kept as reservations: the bulk
 * recipients budget (`RateBudget`). A take is one conditional write while it fits — extend the reservations ahead, or
 * start afresh when there are none — and a read only when it does not (to say when it would).
 */
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '#shared/adapters/aws-clients.ts';
import type { RateBudget } from '#shared/domain/email/recipient-budget.ts';
import { itemMeta, keys } from './keys.ts';
import { isConditionFailure, tableName } from './table.ts';

/** The item lives a day past its last take, then TTL. */
const TTL_SECONDS = 86_400;
/** Tries before giving up (each lost one means another instance took meanwhile). */
const TRIES = 4;

const ttlOf = (now: number) => Math.floor(now / 1000) + TTL_SECONDS;

const conditional = async (write: () => Promise<unknown>): Promise<boolean> => {
  try {
    await write();
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
};

export const dynamoRateBudget = (
  keyOf: (storeId: string) => { pk: string; sk: string },
  entity: 'bulkBudget',
): RateBudget => ({
  async take(storeId, costMs, burstMs, now) {
    const Key = keyOf(storeId);
    for (let i = 0; i < TRIES; i++) {
      const extended = await conditional(() =>
        dynamo().send(
          new UpdateCommand({
            TableName: tableName(),
            Key,
            UpdateExpression: 'SET tat = tat + :cost, expiresAt = :ttl',
            ConditionExpression: 'tat > :now AND tat <= :latest',
            ExpressionAttributeValues: {
              ':cost': costMs,
              ':now': now,
              ':latest': now + burstMs - costMs,
              ':ttl': ttlOf(now),
            },
          }),
        ),
      );
      if (extended) return undefined;
      const started = await conditional(() =>
        dynamo().send(
          new PutCommand({
            TableName: tableName(),
            Item: { ...Key, ...itemMeta(entity), tat: now + costMs, expiresAt: ttlOf(now) },
            ConditionExpression: 'attribute_not_exists(tat) OR tat <= :now',
            ExpressionAttributeValues: { ':now': now },
          }),
        ),
      );
      if (started) return undefined;
      const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key, ConsistentRead: true }));
      const tat = Number((Item as { tat?: number } | undefined)?.tat ?? 0);
      if (tat > now + burstMs - costMs) return tat - burstMs + costMs;
    }
    throw new Error(`The rate budget of ${storeId} kept changing under ${TRIES} tries; retry`);
  },
});

/** The store's bulk recipients budget. */
export const dynamoBulkBudget = (): RateBudget => dynamoRateBudget(keys.bulkBudget, 'bulkBudget');
