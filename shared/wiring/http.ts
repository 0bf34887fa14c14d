/** What the HTTP wrapper needs for every authenticated route: the store lookup by key and the per-store rate limiter. */
import { dynamoRateLimiter } from '#shared/adapters/dynamodb/rate-limiter.ts';
import { dynamoStoreRepository } from '#shared/adapters/dynamodb/store.repository.ts';
import { systemClock } from '#shared/clock.ts';
import { lazy } from '#shared/lazy.ts';

export const httpRouteDeps = /* @__PURE__ */ lazy(() => ({
  stores: dynamoStoreRepository(),
  limiter: dynamoRateLimiter(systemClock),
  clock: systemClock,
}));
