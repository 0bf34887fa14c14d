/** In-memory doubles of the timers area's ports (`shared/domain/timers/ports.ts`), for unit tests. */
import type { Timer, WheelPayload } from '#shared/domain/timers/model.ts';
import type { DuePage, TimerBuckets, Timers } from '#shared/domain/timers/ports.ts';

/** One-time schedules by name, as the Scheduler keeps them: setting a name again moves it. `calls` counts every set. */
export class MemorySchedules implements Timers {
  readonly live = new Map<string, Timer>();
  calls = 0;

  async set(timer: Timer) {
    this.calls++;
    this.live.set(timer.name, timer);
  }
}

/**
 * The wheel's buckets: per store and minute, one wait per timer name; pages of `pageSize` (to exercise paging); each
 * store's count of kept waits, held under the cap `add` is given.
 */
export class MemoryTimerBuckets implements TimerBuckets {
  readonly buckets = new Map<string, Map<string, WheelPayload>>();
  readonly waiting = new Map<string, number>();
  readonly pageSize: number;

  constructor(pageSize = 100) {
    this.pageSize = pageSize;
  }

  async add(minute: number, timer: Timer & { readonly payload: WheelPayload }, cap?: number) {
    const { storeId } = timer.payload;
    const key = `${storeId}\n${minute}`;
    const bucket = this.buckets.get(key) ?? new Map<string, WheelPayload>();
    if (!bucket.has(timer.name) && cap !== undefined) {
      const waiting = this.waiting.get(storeId) ?? 0;
      if (waiting >= cap) return false;
      this.waiting.set(storeId, waiting + 1);
    }
    bucket.set(timer.name, timer.payload);
    this.buckets.set(key, bucket);
    return true;
  }

  async due(storeId: string, minute: number): Promise<DuePage> {
    const entries = [...(this.buckets.get(`${storeId}\n${minute}`) ?? new Map()).entries()];
    return { items: entries.slice(0, this.pageSize).map(([name, payload]) => ({ name, payload })) };
  }

  async remove(storeId: string, minute: number, names: readonly string[], counted: number) {
    const bucket = this.buckets.get(`${storeId}\n${minute}`);
    for (const name of names) bucket?.delete(name);
    this.waiting.set(storeId, (this.waiting.get(storeId) ?? 0) - counted);
  }
}
