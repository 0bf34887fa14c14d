/** In-memory doubles of the stores area's ports (`shared/domain/stores/ports.ts`), for unit tests. */
import type { RateLimiter } from '#shared/domain/stores/ports.ts';

/** Counts takes per key; refuses once `allow` is used up (its window never turns over). */
export class MemoryRateLimiter implements RateLimiter {
  readonly taken = new Map<string, number>();
  allow = Number.POSITIVE_INFINITY;

  isSaturated(key: string) {
    return (this.taken.get(key) ?? 0) > this.allow;
  }

  async take(key: string) {
    const count = (this.taken.get(key) ?? 0) + 1;
    this.taken.set(key, count);
    return count <= this.allow ? { allowed: true as const } : { allowed: false as const, retryAfterSeconds: 1 };
  }
}
