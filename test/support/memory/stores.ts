/** In-memory doubles of the stores area's ports (`shared/domain/stores/ports.ts`), for unit tests. */
import type { RateLimiter } from '#shared/domain/stores/ports.ts';

/**
 * Counts takes per key; refuses once `allow` is used up (its window never turns over), or, with `honourLimits`, once
 * the caller's own per-second limit is (one window: every take falls in the same second).
 */
export class MemoryRateLimiter implements RateLimiter {
  readonly taken = new Map<string, number>();
  allow = Number.POSITIVE_INFINITY;
  honourLimits = false;
  private readonly limits = new Map<string, number>();

  private allowed(key: string) {
    return Math.min(this.allow, this.honourLimits ? (this.limits.get(key) ?? Number.POSITIVE_INFINITY) : this.allow);
  }

  isSaturated(key: string) {
    return (this.taken.get(key) ?? 0) > this.allowed(key);
  }

  async take(key: string, limit: number) {
    this.limits.set(key, limit);
    const count = (this.taken.get(key) ?? 0) + 1;
    this.taken.set(key, count);
    return count <= this.allowed(key) ? { allowed: true as const } : { allowed: false as const, retryAfterSeconds: 1 };
  }
}
