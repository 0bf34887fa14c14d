import { dynamo } from '#shared/adapters/aws-clients.ts';
import { UpdateCommand } from '#shared/adapters/dynamodb-client.ts';
import type { Clock } from '#shared/domain/clock.ts';
import type { WindowCounters } from '#shared/domain/contacts/sign-up-confirmation.ts';
import type { RateLimiter } from '#shared/domain/stores/ports.ts';
import { keys } from './keys.ts';
import { leaseSize, type SecondUsage, usageAt } from './lease-demand.ts';
import { isConditionFailure, tableName } from './table.ts';

/**
 * Counters live two minutes past their second (the send pacer reserves seconds ahead), then DynamoDB's TTL removes
 * them.
 */
const COUNTER_TTL_SECONDS = 120;

/**
 * Adds `count` to the shared counter of `key` in `second` (`keys.rate`) with one `ADD`. With a `limit` the add only
 * happens if the counter stays within it (false when it would not); without, it always happens (a negative count gives
 * slots back). A count over the limit is refused without a write: the condition lets the second's first `ADD` through
 * whatever it adds (its item does not exist yet), and the send pacer asks the account counter for several stores'
 * slots at once, which can be more than the account's rate.
 */
export const addToRateCounter = async (
  key: string,
  second: number,
  count: number,
  limit?: number,
): Promise<boolean> => {
  if (limit !== undefined && count > limit) return false;
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.rate(key, second),
        UpdateExpression: 'ADD hits :count SET expiresAt = if_not_exists(expiresAt, :ttl), entity = :entity',
        ...(limit === undefined ? {} : { ConditionExpression: 'attribute_not_exists(hits) OR hits <= :room' }),
        ExpressionAttributeValues: {
          ':count': count,
          ':ttl': second + COUNTER_TTL_SECONDS,
          ':entity': 'rate',
          ...(limit === undefined ? {} : { ':room': limit - count }),
        },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
};

/**
 * Fixed-window counters (`WindowCounters`) on the same items as the per-second ones: the window's start second names
 * the item, and it lives until an hour after the window ends. One conditional `ADD` per take: the window's first take
 * always fits (a limit of at least 1), later ones only within the limit.
 */
export const dynamoWindowCounters = (): WindowCounters => ({
  async take(key, nowMs, windowSeconds, limit) {
    const start = Math.floor(nowMs / 1000 / windowSeconds) * windowSeconds;
    try {
      await dynamo().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.rate(`window#${windowSeconds}#${key}`, start),
          UpdateExpression: 'ADD hits :one SET expiresAt = if_not_exists(expiresAt, :ttl), entity = :entity',
          ConditionExpression: 'attribute_not_exists(hits) OR hits < :limit',
          ExpressionAttributeValues: {
            ':one': 1,
            ':ttl': start + windowSeconds + 3_600,
            ':entity': 'rate',
            ':limit': limit,
          },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  },
});

/**
 * What one instance knows about one key in the current second; `used` and `usedBefore` are the requests it let through
 * in this second and the one before (`lease-demand.ts`).
 */
interface Window extends SecondUsage {
  /** Tokens claimed from the shared counter and not used yet. */
  leased: number;
  /** The shared counter refused: the window is full. */
  full: boolean;
  /** A claim in flight, which concurrent requests wait for instead of claiming too. */
  claiming?: Promise<void> | undefined;
}

/**
 * Fixed one-second windows shared by every concurrent instance: one counter item per key per second in DynamoDB,
 * incremented with a conditional `ADD` that can never take the counter past the limit, so the limit holds across
 * instances whatever they do.
 *
 * Tokens are claimed in small leases: a request that finds no token in hand claims twice as many as this instance used
 * in the previous second (at least 1, at most a quarter of the limit), or, within a second, twice as many as it used
 * so far. A steady store then costs one write per second instead of one per request (claiming only what the
 * previous second used cost a store at a steady 8 events/s two writes a second, ~0.25 write units per event; twice
 * that covers the second in one claim), a burst from nothing 1, 2, 4, 8, 10, … tokens per claim; a quiet store one
 * write per request, as before. The price is that tokens an instance holds and does not use in its second are lost to
 * the others (at most a quarter of the limit per instance, as before), so with many instances a store may meet its 429
 * slightly before 40 (never after). When a lease does not fit any more, one token is tried before the window is
 * declared full.
 */
export const dynamoRateLimiter = (clock: Clock): RateLimiter => {
  const windows = new Map<string, Window>();
  const currentSecond = () => Math.floor(clock.now() / 1000);

  const windowOf = (key: string): Window => {
    const second = currentSecond();
    const known = windows.get(key);
    if (known?.second === second) return known;
    if (windows.size > 10_000) windows.clear();
    const fresh: Window = { ...usageAt(known, second), leased: 0, full: false };
    windows.set(key, fresh);
    return fresh;
  };

  const refill = async (key: string, window: Window, limit: number) => {
    const lease = leaseSize(window, 1, Math.ceil(limit / 4));
    if (await addToRateCounter(key, window.second, lease, limit)) {
      window.leased += lease;
    } else if (lease > 1 && (await addToRateCounter(key, window.second, 1, limit))) {
      window.leased += 1;
    } else {
      window.full = true;
    }
  };

  return {
    isSaturated: (key) => windowOf(key).full,

    async take(key: string, limit: number) {
      // Each pass re-reads the window: tokens are only ever spent in the second they were claimed for (a claim that
      // comes back after its second ended is dropped), so an instance never lets through more than it was granted.
      for (;;) {
        const window = windowOf(key);
        if (window.leased > 0) {
          window.leased -= 1;
          window.used += 1;
          return { allowed: true };
        }
        if (window.full) return { allowed: false, retryAfterSeconds: 1 };
        window.claiming ??= refill(key, window, limit).finally(() => {
          window.claiming = undefined;
        });
        await window.claiming;
      }
    },
  };
};
