/**
 * Flow email and the shared SES rate: flow email used to bypass the pacer. Every flow email now takes a
 * slot of its class (transactional flows first) and marketing flow email counts against the store's daily cap.
 */
import { describe, expect, it } from 'vitest';
import { budgetAdmission, nextTat, type RunBudget } from '#shared/domain/flows/admission.ts';
import { handleFlowMessage } from '#shared/domain/flows/engine.ts';
import { handleTrigger } from '#shared/domain/flows/enter-run.ts';
import { runIdOf } from '#shared/domain/flows/run.ts';
import { fakes, flowOf, STORE, triggerOf } from '#test/support/memory/flow-engine.ts';

describe('flow email and the pacer', () => {
  it('takes a send slot for every flow email, of the class its consent rule gives', async () => {
    const f = fakes();
    f.flows.set('fl_order', flowOf('fl_order', 'order_paid'));
    f.flows.set('fl_promo', flowOf('fl_promo', 'order_paid', { consent: 'not_unsubscribed' }));
    await handleTrigger(f.deps, triggerOf('order_paid'));
    expect(f.sent).toHaveLength(2);
    expect(f.slots.map((slot) => slot.sendClass).sort()).toEqual(['marketing', 'transactional']);
    expect(f.slots.every((slot) => slot.storeId === STORE && slot.count === 1)).toBe(true);
  });

  it('skips marketing flow email past the daily cap with its reason, and never transactional email', async () => {
    const f = fakes();
    const deps = { ...f.deps, dailySendCap: async () => 1 };
    f.flows.set('fl_order', flowOf('fl_order', 'order_paid'));
    f.flows.set('fl_promo', flowOf('fl_promo', 'order_paid', { consent: 'not_unsubscribed' }));
    const first = triggerOf('order_paid', { contact: { email: 'one@example.com' } });
    const second = triggerOf('order_paid', { contact: { email: 'two@example.com' } });
    await handleTrigger(deps, first);
    await handleTrigger(deps, second);
    expect(f.runs.get(runIdOf(STORE, 'fl_promo', first.id))?.status).toBe('completed');
    expect(f.runs.get(runIdOf(STORE, 'fl_promo', second.id))?.events.at(-1)).toMatchObject({
      type: 'exited',
      reason: 'daily_send_cap',
      detail: { cap: 1 },
    });
    expect(f.runs.get(runIdOf(STORE, 'fl_order', second.id))?.status).toBe('completed');
    expect(f.sent).toHaveLength(3);
  });
});

/** The store budget's reservations in memory, as the table keeps them. */
const memoryRunBudget = (): RunBudget => {
  const tats = new Map<string, number>();
  return {
    async reserve(storeId, costMs, now) {
      const tat = nextTat(tats.get(storeId), now, costMs);
      tats.set(storeId, tat);
      return tat;
    },
  };
};

describe("a store's run-start budget", () => {
  it('puts a trigger over the budget off until its reserved time, whole, writing nothing; then it starts its runs', async () => {
    const f = fakes();
    for (let i = 0; i < 3; i++) f.flows.set(`fl_${i}`, flowOf(`fl_${i}`, 'order_paid'));
    const trigger = triggerOf('order_paid');
    f.triggers.set(trigger.id, trigger);
    const requeued: { triggerId: string; delay: number | undefined; reservedAt: number | undefined }[] = [];
    let reserveAt = f.clock.now + 4_500;
    let asked = 0;
    const deps = {
      ...f.deps,
      admission: {
        admit: async () => {
          asked++;
          return reserveAt;
        },
      },
      flowQueue: {
        trigger: async (_storeId: string, triggerId: string, delay?: number, reservedAt?: number) => {
          requeued.push({ triggerId, delay, reservedAt });
        },
      },
    };
    const message = { v: 1, type: 'trigger', storeId: STORE, triggerId: trigger.id } as const;
    expect(await handleFlowMessage(deps, message)).toMatchObject({ deferredUntil: reserveAt });
    // Back on the queue for the whole seconds until its time (rounded up: never early), carrying the reservation.
    expect(requeued).toEqual([{ triggerId: trigger.id, delay: 5, reservedAt: reserveAt }]);
    expect(f.runs.size).toBe(0);
    expect(f.sent).toHaveLength(0);

    // Reserved further ahead than SQS can delay: another hop of 900 s, the reservation kept, the budget not asked.
    requeued.length = 0;
    const far = f.clock.now + 2_000_000;
    await handleFlowMessage(deps, { ...message, reservedAt: far });
    expect(requeued).toEqual([{ triggerId: trigger.id, delay: 900, reservedAt: far }]);
    expect(asked).toBe(1);

    // At its time it starts its runs without asking the budget again (its starts were counted when it was put off).
    reserveAt = Number.POSITIVE_INFINITY;
    await handleFlowMessage(deps, { ...message, reservedAt: f.clock.now });
    expect(asked).toBe(1);
    expect(f.runs.size).toBe(3);
    expect(f.sent).toHaveLength(3);
  });
});

describe('a trigger entering more flows than the budget starts a second', () => {
  it('starts them in steps of one second of runs, a second apart, each flow once, the budget asked once', async () => {
    const f = fakes();
    for (let i = 0; i < 12; i++) f.flows.set(`fl_${String(i).padStart(2, '0')}`, flowOf(`fl_${i}`, 'order_paid'));
    for (const [id, flow] of f.flows) f.flows.set(id, { ...flow, id });
    const trigger = triggerOf('order_paid');
    f.triggers.set(trigger.id, trigger);
    const queued: { delay: number | undefined; reservedAt: number | undefined; after: string | undefined }[] = [];
    let asked = 0;
    const deps = {
      ...f.deps,
      admission: {
        slice: 5,
        admit: async () => {
          asked++;
          return f.clock.now;
        },
      },
      flowQueue: {
        trigger: async (_s: string, _t: string, delay?: number, reservedAt?: number, after?: string) => {
          queued.push({ delay, reservedAt, after });
        },
      },
    };
    const message = { v: 1, type: 'trigger', storeId: STORE, triggerId: trigger.id } as const;
    const first = await handleFlowMessage(deps, message);
    // Before: all twelve runs started in this one call (a burst of every flow's writes at once).
    expect(first).toMatchObject({ continueAfter: 'fl_04' });
    expect(f.runs.size).toBe(5);
    expect(queued).toEqual([{ delay: 1, reservedAt: f.clock.now + 1000, after: 'fl_04' }]);

    // Each step comes back a second later, carrying its reservation (the budget is not asked again).
    const second = await handleFlowMessage(deps, { ...message, reservedAt: f.clock.now, after: 'fl_04' });
    expect(second).toMatchObject({ continueAfter: 'fl_09' });
    expect(f.runs.size).toBe(10);
    const third = await handleFlowMessage(deps, { ...message, reservedAt: f.clock.now, after: 'fl_09' });
    expect(third).not.toHaveProperty('continueAfter');
    expect(f.runs.size).toBe(12);
    expect(queued.map((q) => q.after)).toEqual(['fl_04', 'fl_09']);
    expect(asked).toBe(1);
    expect(f.sent).toHaveLength(12);

    // A step delivered twice starts nothing twice.
    await handleFlowMessage(deps, { ...message, reservedAt: f.clock.now, after: 'fl_04' });
    expect(f.runs.size).toBe(12);
    expect(f.sent).toHaveLength(12);
  });
});

describe('budgetAdmission', () => {
  const clockAt = (now: { value: number }) => ({ now: () => now.value });

  it('lets one second of runs start at once, then reserves each trigger its turn at 50 runs a second', async () => {
    const now = { value: 1_000_000 };
    const admission = budgetAdmission(memoryRunBudget(), clockAt(now), 50);
    // 50 single-flow triggers fit in the burst; the next ones are reserved 20 ms apart.
    const single = await Promise.all(Array.from({ length: 53 }, () => admission.admit('st_b', 1)));
    expect(single.filter((at) => at <= now.value)).toHaveLength(51);
    expect(single.slice(51)).toEqual([now.value + 20, now.value + 40]);

    // A trigger of 49 flows costs 980 ms: two start now, then one a little under a second apart.
    const many = [];
    for (let i = 0; i < 5; i++) many.push(await admission.admit('st_a', 49));
    expect(many.map((at) => at - now.value)).toEqual([0, 0, 960, 1940, 2920]);
    // Another store's budget is its own.
    expect(await admission.admit('st_c', 100)).toBe(now.value);
  });

  it('forgets reservations that have passed: an idle store starts at once again', async () => {
    const now = { value: 1_000_000 };
    const admission = budgetAdmission(memoryRunBudget(), clockAt(now), 50);
    for (let i = 0; i < 4; i++) await admission.admit('st_a', 50);
    now.value += 10_000;
    expect(await admission.admit('st_a', 50)).toBe(now.value);
  });
});
