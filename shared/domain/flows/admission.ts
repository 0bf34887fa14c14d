/** The run-start budget of `RunAdmission` on the shared per-store rate limiter (fixed one-second windows). */
import type { RateLimiter } from '#shared/domain/stores/ports.ts';
import type { RunAdmission } from './ports.ts';

/**
 * One token per trigger, against a per-second limit scaled by the runs it may start: a trigger of one flow may come
 * `perSecond` times a second, one of 50 flows once (`perSecond / runs`, at least one). All or nothing, so a trigger of
 * many flows is never starved by taking part of a second's budget and giving up.
 */
export const limiterAdmission = (limiter: RateLimiter, perSecond: number): RunAdmission => ({
  async admit(storeId, runs) {
    const key = `${storeId}#flow-runs`;
    const limit = Math.max(1, Math.floor(perSecond / Math.max(1, runs)));
    if (limiter.isSaturated(key)) return false;
    return (await limiter.take(key, limit)).allowed;
  },
});
