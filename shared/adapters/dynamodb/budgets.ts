/**
 * A store's budgets kept as reservations (GCRA): one item holding `tat`, the time its reserved work takes up to.
 *
 * - The flow-run budget (`RunBudget`, shared/domain/flows/admission.ts) is a queue: every trigger reserves its share
 *   and is told when its turn comes, however far ahead.
 * - The bulk recipients budget (`RateBudget`, shared/domain/email/recipient-budget.ts) is a limit: a send reserves its
 *   share only if the reservations then end within the burst; else it is refused and told when it would fit.
 *
 * Either way a reservation is one conditional write: while reservations are ahead (`tat` after now) their end moves by
 * the cost (`extend`); when there are none, the end is set to now plus the cost (`start`). A lost condition means
 * another instance wrote meanwhile, and the other write is tried.
 */

import { dynamo } from '#shared/adapters/aws-clients.ts';
import { GetCommand, PutCommand, UpdateCommand } from '#shared/adapters/dynamodb-client.ts';
import type { RateBudget } from '#shared/domain/email/recipient-budget.ts';
import type { RunBudget } from '#shared/domain/flows/admission.ts';
import { gatheredPerTurn } from './coalesced.ts';
import { itemMeta, keys } from './keys.ts';
import { isConditionFailure, tableName } from './table.ts';

type Key = { readonly pk: string; readonly sk: string };

/** The item lives a day past its last reservation's making (a backlog of a day is not kept), then TTL. */
const TTL_SECONDS = 86_400;
/** Tries before giving up (each lost one means another instance reserved meanwhile). */
const TRIES = 4;

const ttlOf = (now: number) => Math.floor(now / 1000) + TTL_SECONDS;

/** Adds `costMs` to reservations ahead of `now` (ending no later than `latest`, when given): their new end. */
const extend = async (Key: Key, costMs: number, now: number, latest = Number.MAX_SAFE_INTEGER) => {
  try {
    const answer = await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key,
        UpdateExpression: 'SET tat = tat + :cost, expiresAt = :ttl',
        ConditionExpression: 'tat > :now AND tat <= :latest',
        ExpressionAttributeValues: { ':cost': costMs, ':now': now, ':latest': latest, ':ttl': ttlOf(now) },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return Number((answer.Attributes as { tat: number }).tat);
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
};

/** Starts afresh when no reservations are ahead: their end is now plus `costMs`. */
const start = async (Key: Key, entity: 'runBudget' | 'bulkBudget', costMs: number, now: number) => {
  const tat = now + costMs;
  try {
    await dynamo().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...Key, ...itemMeta(entity), tat, expiresAt: ttlOf(now) },
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

export const dynamoRunBudget = (): RunBudget => {
  /** Stores this instance last saw with reservations ahead (their end), so a busy store's first try is the add. */
  const lastSeen = new Map<string, number>();
  return {
    async reserve(storeId, costMs, now) {
      const Key = keys.runBudget(storeId);
      let busy = (lastSeen.get(storeId) ?? 0) > now;
      for (let i = 0; i < TRIES; i++) {
        const tat = busy ? await extend(Key, costMs, now) : await start(Key, 'runBudget', costMs, now);
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

/**
 * The run-start budget with the reservations of one store asked for during one turn of the event loop made as one
 * write (issue 16: a flow-worker batch's triggers of one store each reserved with their own conditional write). Each
 * caller is answered the end of its own reservation as if the turn's reservations had been made one after the other
 * in the order asked, from the latest `now` among them (never earlier than it would have started alone).
 */
export const coalescedRunBudget = (budget: RunBudget): RunBudget => {
  type Ask = { readonly costMs: number; readonly now: number };
  const gathered = gatheredPerTurn<Ask, number>(async (storeId, asks) => {
    if (asks.length === 1) {
      const [ask] = asks as [Ask];
      return [await budget.reserve(storeId, ask.costMs, ask.now)];
    }
    const total = asks.reduce((sum, ask) => sum + ask.costMs, 0);
    const end = await budget.reserve(storeId, total, Math.max(...asks.map((ask) => ask.now)));
    // The i-th reservation ends where the ones after it begin.
    let after = total;
    return asks.map((ask) => {
      after -= ask.costMs;
      return end - after;
    });
  });
  return { reserve: (storeId, costMs, now) => gathered(storeId, { costMs, now }) };
};

export const dynamoBulkBudget = (): RateBudget => ({
  async take(storeId, costMs, burstMs, now) {
    const Key = keys.bulkBudget(storeId);
    const latest = now + burstMs - costMs;
    for (let i = 0; i < TRIES; i++) {
      if ((await extend(Key, costMs, now, latest)) !== undefined) return undefined;
      if ((await start(Key, 'bulkBudget', costMs, now)) !== undefined) return undefined;
      // Neither fits: read how far the reservations reach (unless they moved back meanwhile: try again).
      const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key, ConsistentRead: true }));
      const tat = Number((Item as { tat?: number } | undefined)?.tat ?? 0);
      if (tat > latest) return tat - burstMs + costMs;
    }
    throw new Error(`The bulk recipients budget of ${storeId} kept changing under ${TRIES} tries; retry`);
  },
});
