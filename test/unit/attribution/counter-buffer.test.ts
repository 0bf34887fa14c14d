/**
 * The batch's counter buffer (`shared/domain/attribution/counter-buffer.ts`): additions kept in memory add up per
 * store, scope and day, one `add` each at the flush, and a failed flush keeps them for the next one.
 */
import { describe, expect, it } from 'vitest';
import { counterBuffer, flushPersistently } from '#shared/domain/attribution/counter-buffer.ts';
import type { AttributionStore } from '#shared/domain/attribution/ports.ts';
import { memoryAttribution } from '#test/support/memory/attribution.ts';

/** The memory store, counting its item writes (`addTo`), failing those `failing` picks. */
const counted = () => {
  const { store } = memoryAttribution();
  const calls: { storeId: string; scope: string; period: string }[] = [];
  let failing: (period: string) => boolean = () => false;
  const target: AttributionStore = {
    ...store,
    async addTo(storeId, scope, period, deltas) {
      calls.push({ storeId, scope, period });
      if (failing(period)) throw new Error('throttled');
      await store.addTo(storeId, scope, period, deltas);
    },
  };
  return {
    store,
    target,
    calls,
    failWhen: (which: (period: string) => boolean) => {
      failing = which;
    },
  };
};

describe('counterBuffer', () => {
  it('adds nothing until the flush, then one write per store, scope and day, and per month, with the sums', async () => {
    const { store, target, calls } = counted();
    const buffer = counterBuffer(target);
    for (let i = 0; i < 10; i++) {
      await buffer.store.add('st_a', ['store', 'flow#f1', 'step#f1#s1'], '2026-11-25', { emailed: 1 });
    }
    await buffer.store.add('st_a', ['flow#f1'], '2026-11-25', { entered: 2, emailed: 0 });
    await buffer.store.add('st_a', ['store'], '2026-11-26', { emailed: 1 });
    await buffer.store.add('st_b', ['store'], '2026-11-25', { opened: 1 });
    expect(calls).toHaveLength(0);
    expect(await store.days('st_a', 'store', '2026-11-01', '2026-11-30')).toEqual([]);

    await buffer.flush();
    // Days: st_a store ×2, flow, step; st_b store. Months: st_a store, flow, step; st_b store.
    expect(calls).toHaveLength(9);
    expect(await store.months('st_a', 'store', '2026-11', '2026-11')).toEqual([
      { month: '2026-11', counts: { emailed: 11 } },
    ]);
    expect(await store.days('st_a', 'store', '2026-11-01', '2026-11-30')).toEqual([
      { day: '2026-11-25', counts: { emailed: 10 } },
      { day: '2026-11-26', counts: { emailed: 1 } },
    ]);
    expect(await store.days('st_a', 'flow#f1', '2026-11-25', '2026-11-25')).toEqual([
      { day: '2026-11-25', counts: { emailed: 10, entered: 2 } },
    ]);
    expect(await store.days('st_b', 'store', '2026-11-25', '2026-11-25')).toEqual([
      { day: '2026-11-25', counts: { opened: 1 } },
    ]);

    await buffer.flush();
    expect(calls).toHaveLength(9);
  });

  it('keeps what a failed flush could not write for the next flush, adding what came meanwhile', async () => {
    const { store, target, failWhen } = counted();
    const failed: number[] = [];
    const buffer = counterBuffer(target, (_error, kept) => failed.push(kept));
    await buffer.store.add('st_a', ['store', 'flow#f1'], '2026-11-25', { clicked: 1 });
    failWhen(() => true);
    await buffer.flush();
    expect(failed).toEqual([4]);
    expect(await store.days('st_a', 'store', '2026-11-25', '2026-11-25')).toEqual([]);

    failWhen(() => false);
    await buffer.store.add('st_a', ['store'], '2026-11-25', { clicked: 1 });
    await buffer.flush();
    expect(await store.days('st_a', 'store', '2026-11-25', '2026-11-25')).toEqual([
      { day: '2026-11-25', counts: { clicked: 2 } },
    ]);
    expect(await store.days('st_a', 'flow#f1', '2026-11-25', '2026-11-25')).toEqual([
      { day: '2026-11-25', counts: { clicked: 1 } },
    ]);
  });

  it('keeps a month whose write failed without adding its day again', async () => {
    const { store, target, failWhen } = counted();
    const buffer = counterBuffer(target);
    await buffer.store.add('st_a', ['store'], '2026-11-25', { emailed: 1 });
    failWhen((period) => period.length === 7);
    await buffer.flush();
    failWhen(() => false);
    await buffer.flush();
    expect(await store.days('st_a', 'store', '2026-11-25', '2026-11-25')).toEqual([
      { day: '2026-11-25', counts: { emailed: 1 } },
    ]);
    expect(await store.months('st_a', 'store', '2026-11', '2026-11')).toEqual([
      { month: '2026-11', counts: { emailed: 1 } },
    ]);
  });

  it('passes every other method straight through', async () => {
    const { target } = counted();
    const buffer = counterBuffer(target);
    expect(await buffer.store.claimOnce('st_a', 'clicked#e1')).toBe(true);
    expect(await target.claimOnce('st_a', 'clicked#e1')).toBe(false);
  });
});

describe('flushPersistently', () => {
  it('tries again after each pause while writes fail, and stops once everything is written', async () => {
    const { store, target, calls, failWhen } = counted();
    const buffer = counterBuffer(target);
    await buffer.store.add('st_a', ['store'], '2026-11-25', { emailed: 2 });
    let failures = 2;
    failWhen(() => failures-- > 0);
    const pauses: number[] = [];
    const kept = await flushPersistently(buffer, [200, 800, 3200], async (ms) => pauses.push(ms));
    expect(kept).toBe(0);
    // Day and month fail at the first try; both are written at the second, after the first pause only.
    expect(pauses).toEqual([200]);
    expect(calls).toHaveLength(4);
    expect(await store.days('st_a', 'store', '2026-11-25', '2026-11-25')).toEqual([
      { day: '2026-11-25', counts: { emailed: 2 } },
    ]);
  });

  it('leaves what still fails after its last pause kept for the next flush', async () => {
    const { store, target, failWhen } = counted();
    const buffer = counterBuffer(target);
    await buffer.store.add('st_a', ['store'], '2026-11-25', { emailed: 1 });
    failWhen(() => true);
    const pauses: number[] = [];
    expect(await flushPersistently(buffer, [200, 800], async (ms) => pauses.push(ms))).toBe(2);
    expect(pauses).toEqual([200, 800]);
    failWhen(() => false);
    expect(await buffer.flush()).toBe(0);
    expect(await store.months('st_a', 'store', '2026-11', '2026-11')).toEqual([
      { month: '2026-11', counts: { emailed: 1 } },
    ]);
  });
});
