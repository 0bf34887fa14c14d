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
import { leaseSize, type SecondUsage, usageAt } from './lease-demand.ts';
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
 * write (a flow-worker batch's triggers of one store each reserved with their own conditional write). Each
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

/** The most of a store's budget one warm worker leases ahead: a quarter of a second's runs (the burst). */
const MAX_LEASE_MS = 250;

/**
 * The run-start budget leased per warm worker (a steady store's batches each reserved with their own
 * conditional write, about half a write per trigger). A reservation this worker cannot serve from what it holds
 * reserves more than it asked for: twice what it used of the store's budget in this second or the one before (at least
 * what it asked for, at most a quarter of a second's runs), and keeps the rest of that range for its next ones. A
 * leased slot is handed out only while its reserved time is still ahead (its start is moved up to now), so the store
 * never starts more than its budget; slots whose time passes unused are lost, which only delays the store's own
 * triggers on other workers, by at most one lease. A steady store then reserves a few times a second per worker instead
 * of once per batch; a quiet one as before, once per trigger.
 */
export const leasedRunBudget = (budget: RunBudget): RunBudget => {
  /** `used` and `usedBefore`: the ms of budget this worker handed out in this second and the one before. */
  interface Lease extends SecondUsage {
    /** The part of the store's reservations this worker holds and has not handed out: `[from, to)`. */
    from: number;
    to: number;
    /** A reservation in flight, which this worker's other asks of the store wait for instead of reserving too. */
    claiming?: Promise<void> | undefined;
  }
  const leases = new Map<string, Lease>();
  const leaseOf = (storeId: string, now: number): Lease => {
    const second = Math.floor(now / 1000);
    let lease = leases.get(storeId);
    if (!lease) {
      if (leases.size > 10_000) leases.clear();
      lease = { from: 0, to: 0, second, used: 0, usedBefore: 0 };
      leases.set(storeId, lease);
    } else {
      Object.assign(lease, usageAt(lease, second));
    }
    return lease;
  };
  return {
    async reserve(storeId, costMs, now) {
      for (;;) {
        const lease = leaseOf(storeId, now);
        const start = Math.max(lease.from, now);
        if (start + costMs <= lease.to) {
          lease.from = start + costMs;
          lease.used += costMs;
          return lease.from;
        }
        if (lease.claiming) {
          await lease.claiming;
          continue;
        }
        const size = leaseSize(lease, costMs, MAX_LEASE_MS);
        let end = 0;
        lease.claiming = budget
          .reserve(storeId, size, now)
          .then((tat) => {
            end = tat;
          })
          .finally(() => {
            lease.claiming = undefined;
          });
        await lease.claiming;
        // The asker's slot is the range's first; the rest is held (what was left of the last lease is too small).
        lease.from = end - size + costMs;
        lease.to = end;
        lease.used += costMs;
        return lease.from;
      }
    },
  };
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
