/**
 * The timer wheel: the number of live Scheduler schedules follows a store's due minutes, never its
 * waiting runs. Replays the attack: fifty flows starting with a 90-day wait, entered by ten customers.
 */
import { describe, expect, it } from 'vitest';
import { type Timer, timerName } from '#shared/domain/timers/model.ts';
import {
  dueMinute,
  releaseTick,
  tickName,
  WaitingRunsCapReached,
  WHEEL_MIN_WAIT_MS,
  wheelTimers,
} from '#shared/domain/timers/wheel.ts';
import { RetryLater } from '#shared/errors.ts';
import { MemorySchedules, MemoryTimerBuckets } from '#test/support/memory/timers.ts';

const NOW = Date.UTC(2026, 10, 24, 12, 0, 30);
const DAY = 86_400_000;

const flowWait = (storeId: string, runId: string, at: number): Timer => ({
  name: timerName('flow', storeId, `${runId}#wait-1`),
  at,
  payload: { v: 1, kind: 'flow', storeId, runId, step: 'wait-1' },
});

const setup = (waitingRunsCap = 1_000_000) => {
  const clock = { ms: NOW, now: () => clock.ms };
  const schedules = new MemorySchedules();
  const buckets = new MemoryTimerBuckets(100);
  const timers = wheelTimers({ buckets, schedules, clock, waitingRunsCap });
  return { clock, schedules, buckets, timers };
};

describe('the timer wheel', () => {
  it('keeps 500 waiting runs of one store due in one minute behind one schedule', async () => {
    const { schedules, buckets, timers } = setup();
    for (let customer = 0; customer < 10; customer++) {
      for (let flow = 0; flow < 50; flow++) {
        await timers.set(flowWait('st_attacker', `run-${customer}-${flow}`, NOW + 90 * DAY + customer * 1000));
      }
    }
    expect([...schedules.live.keys()]).toEqual([tickName('st_attacker', dueMinute(NOW + 90 * DAY))]);
    expect(schedules.calls).toBe(1);
    expect([...buckets.buckets.values()].reduce((sum, bucket) => sum + bucket.size, 0)).toBe(500);
  });

  it("refuses a store's wait past its cap of waiting runs, counts a wait set again once, and frees room on release", async () => {
    const { buckets, timers } = setup(3);
    const at = NOW + DAY;
    for (const run of ['r1', 'r2', 'r3']) await timers.set(flowWait('st_full', run, at));
    await expect(timers.set(flowWait('st_full', 'r4', at))).rejects.toBeInstanceOf(WaitingRunsCapReached);
    // The same wait again is not a new one; another store has its own room.
    await timers.set(flowWait('st_full', 'r1', at));
    await timers.set(flowWait('st_other', 'r1', at));
    expect(buckets.waiting.get('st_full')).toBe(3);
    // Released waits leave the count.
    await releaseTick(
      { buckets, flowQueue: { resume: async () => undefined } },
      { v: 1, kind: 'tick', storeId: 'st_full', minute: dueMinute(at) },
    );
    expect(buckets.waiting.get('st_full')).toBe(0);
    await timers.set(flowWait('st_full', 'r4', at));
  });

  it('gives each store its own tick, due at the whole minute at or after the wait ends', async () => {
    const { schedules, timers } = setup();
    const at = NOW + 3 * 3600_000 + 15_000;
    await timers.set(flowWait('st_a', 'run-a', at));
    await timers.set(flowWait('st_b', 'run-b', at));
    const ticks = [...schedules.live.values()];
    expect(ticks.map((tick) => tick.payload)).toEqual([
      { v: 1, kind: 'tick', storeId: 'st_a', minute: dueMinute(at) },
      { v: 1, kind: 'tick', storeId: 'st_b', minute: dueMinute(at) },
    ]);
    for (const tick of ticks) {
      expect(tick.at).toBeGreaterThanOrEqual(at);
      expect(tick.at - at).toBeLessThan(60_000);
    }
  });

  it('leaves short waits and cart timers on their own exact schedule', async () => {
    const { schedules, buckets, timers } = setup();
    const short = flowWait('st_a', 'run-short', NOW + WHEEL_MIN_WAIT_MS - 1);
    const cart: Timer = {
      name: timerName('cart', 'st_a', 'tok'),
      at: NOW + 3600_000,
      payload: { v: 1, kind: 'cart', storeId: 'st_a', token: 'tok', revision: 1 },
    };
    await timers.set(short);
    await timers.set(cart);
    expect(schedules.live.get(short.name)).toEqual(short);
    expect(schedules.live.get(cart.name)).toEqual(cart);
    expect(buckets.buckets.size).toBe(0);
  });

  it('releases every wait of the store and minute its tick names, page by page, and no other', async () => {
    const { schedules, buckets, timers } = setup();
    const at = NOW + 7 * DAY;
    for (let i = 0; i < 250; i++) await timers.set(flowWait('st_a', `run-${i}`, at));
    await timers.set(flowWait('st_b', 'run-b', at));
    await timers.set(flowWait('st_a', 'run-later', at + 3600_000));
    const tick = schedules.live.get(tickName('st_a', dueMinute(at)));
    if (tick?.payload.kind !== 'tick') throw new Error('no tick for st_a');

    const resumed: string[] = [];
    const released = await releaseTick(
      { buckets, flowQueue: { resume: async (storeId, runId) => void resumed.push(`${storeId}/${runId}`) } },
      tick.payload,
    );
    expect(released).toBe(250);
    expect(new Set(resumed).size).toBe(250);
    expect(resumed.every((id) => id.startsWith('st_a/run-') && id !== 'st_a/run-later')).toBe(true);
  });

  it('stops a large release when time runs short and goes on where it stopped on the retry', async () => {
    const { schedules, buckets, timers } = setup();
    const at = NOW + DAY;
    for (let i = 0; i < 250; i++) await timers.set(flowWait('st_a', `run-${i}`, at));
    const tick = schedules.live.get(tickName('st_a', dueMinute(at)));
    if (tick?.payload.kind !== 'tick') throw new Error('no tick');
    const resumed: string[] = [];
    const deps = { buckets, flowQueue: { resume: async (_: string, runId: string) => void resumed.push(runId) } };

    let pages = 0;
    const stopped = await releaseTick(deps, tick.payload, () => ++pages < 2).catch((error: Error) => error);
    expect(stopped).toBeInstanceOf(RetryLater);
    expect(resumed).toHaveLength(200);
    expect(await releaseTick(deps, tick.payload)).toBe(50);
    expect(new Set(resumed).size).toBe(250);
    expect(await releaseTick(deps, tick.payload)).toBe(0);
  });

  it('keeps segment re-evaluations on the wheel without counting them as waiting runs, and releases them to the segments queue', async () => {
    const { schedules, buckets, timers } = setup(1);
    const at = NOW + 30 * DAY;
    await timers.set(flowWait('st_seg', 'r1', at));
    for (const customerId of ['c1', 'c2']) {
      await timers.set({
        name: timerName('segment', 'st_seg', customerId),
        at,
        payload: { v: 1, kind: 'segment', storeId: 'st_seg', customerId, at },
      });
    }
    // Two contacts and a wait in one minute: one schedule; the cap of one waiting run is not reached by the contacts.
    expect([...schedules.live.keys()]).toEqual([tickName('st_seg', dueMinute(at))]);
    expect(buckets.waiting.get('st_seg')).toBe(1);
    const resumed: string[] = [];
    const rechecked: string[] = [];
    await releaseTick(
      {
        buckets,
        flowQueue: { resume: async (_storeId, runId) => void resumed.push(runId) },
        segmentRechecks: { recheck: async (timer) => void rechecked.push(timer.customerId) },
      },
      { v: 1, kind: 'tick', storeId: 'st_seg', minute: dueMinute(at) },
    );
    expect(resumed).toEqual(['r1']);
    expect(rechecked.sort()).toEqual(['c1', 'c2']);
    expect(buckets.waiting.get('st_seg')).toBe(0);
  });
});
