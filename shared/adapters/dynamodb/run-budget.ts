/**
 * A store's flow-run start reservations (`RunBudget`): one item holding `tat`, the time the reserved runs take up to.
 * A reservation is one conditional write: while the store has reservations ahead (`tat` after now) their end moves by
 * the cost; when it has none, the end is set to now plus the cost. Which of the two to try first is this instance's
 * last sight of the store; a lost condition (another worker moved it meanwhile) tries the other.
 */
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '#shared/adapters/aws-clients.ts';
import type { RunBudget } from '#shared/domain/flows/admission.ts';
import { itemMeta, keys } from './keys.ts';
import { isConditionFailure, tableName } from './table.ts';

/** The item lives a day past its last reservation's making (a backlog of a day's runs is not kept), then TTL. */
const TTL_SECONDS = 86_400;
/** Tries before giving up (each lost one means another worker reserved meanwhile). */
const TRIES = 4;

export const dynamoRunBudget = (): RunBudget => {
  /** Stores this instance last saw with reservations ahead (their end), so a busy store's first try is the add. */
  const lastSeen = new Map<string, number>();

  const extend = async (storeId: string, costMs: number, now: number): Promise<number | undefined> => {
    try {
      const answer = await dynamo().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.runBudget(storeId),
          UpdateExpression: 'SET tat = tat + :cost, expiresAt = :ttl',
          ConditionExpression: 'tat > :now',
          ExpressionAttributeValues: { ':cost': costMs, ':now': now, ':ttl': ttlOf(now) },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return Number((answer.Attributes as { tat: number }).tat);
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  };

  const start = async (storeId: string, costMs: number, now: number): Promise<number | undefined> => {
    const tat = now + costMs;
    try {
      await dynamo().send(
        new PutCommand({
          TableName: tableName(),
          Item: { ...keys.runBudget(storeId), ...itemMeta('runBudget'), tat, expiresAt: ttlOf(now) },
          ConditionExpression: 'attribute_not_exists(tat) OR tat <= :now',
          ExpressionAttributeValues: { ':now': now },
        }),
      );
      return tat;
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  };

  return {
    async reserve(storeId, costMs, now) {
      let busy = (lastSeen.get(storeId) ?? 0) > now;
      for (let i = 0; i < TRIES; i++) {
        const tat = busy ? await extend(storeId, costMs, now) : await start(storeId, costMs, now);
        if (tat !== undefined) {
          if (tat > now + costMs) lastSeen.set(storeId, tat);
          else lastSeen.delete(storeId);
          return tat;
        }
        busy = !busy;
      }
      throw new Error(`The flow-run budget of ${storeId} kept changing under ${TRIES} tries; the queue retries`);
    },
  };
};

const ttlOf = (now: number) => Math.floor(now / 1000) + TTL_SECONDS;
