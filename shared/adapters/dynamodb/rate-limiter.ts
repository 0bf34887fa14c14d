import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Clock, RateLimiter } from '../../domain/ports.ts';
import { dynamo } from '../aws-clients.ts';
import { keys } from './keys.ts';
import { isConditionFailure, tableName } from './table.ts';

/** Counters live a minute past their second, then DynamoDB's TTL removes them. */
const COUNTER_TTL_SECONDS = 60;

/**
 * Fixed-window limiter shared by every concurrent Lambda: one counter item per key per second, incremented with a
 * conditional `ADD` that fails once the window is full. One write per request, no read.
 */
export const dynamoRateLimiter = (clock: Clock): RateLimiter => {
  /** key → the second in which this instance saw the window full; later requests in it are refused locally. */
  const full = new Map<string, number>();
  const currentSecond = () => Math.floor(clock.now() / 1000);
  const isSaturated = (key: string) => full.get(key) === currentSecond();

  return {
    isSaturated,
    async take(key: string, limit: number) {
      const second = currentSecond();
      if (full.get(key) === second) return { allowed: false, retryAfterSeconds: 1 };
      try {
        await dynamo().send(
          new UpdateCommand({
            TableName: tableName(),
            Key: keys.rate(key, second),
            UpdateExpression: 'ADD hits :one SET expiresAt = if_not_exists(expiresAt, :ttl), entity = :entity',
            ConditionExpression: 'attribute_not_exists(hits) OR hits < :limit',
            ExpressionAttributeValues: {
              ':one': 1,
              ':limit': limit,
              ':ttl': second + COUNTER_TTL_SECONDS,
              ':entity': 'rate',
            },
          }),
        );
        return { allowed: true };
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        // Stale windows are dropped as new ones fill, so the map stays as small as the set of busy keys.
        if (full.size > 10_000) full.clear();
        full.set(key, second);
        return { allowed: false, retryAfterSeconds: 1 };
      }
    },
  };
};
