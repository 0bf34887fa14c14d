/**
 * Flow email and the shared SES rate (issue 13): flow email used to bypass the pacer. Every flow email now takes a
 * slot of its class (transactional flows first) and marketing flow email counts against the store's daily cap.
 */
import { describe, expect, it } from 'vitest';
import { limiterAdmission } from '#shared/domain/flows/admission.ts';
import { handleFlowMessage } from '#shared/domain/flows/engine.ts';
import { handleTrigger } from '#shared/domain/flows/enter-run.ts';
import { runIdOf } from '#shared/domain/flows/run.ts';
import { fakes, flowOf, STORE, triggerOf } from '#test/support/memory/flow-engine.ts';
import { MemoryRateLimiter } from '#test/support/memory/stores.ts';

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

describe("a store's run-start budget", () => {
  it('puts a trigger over the budget back on the queue, whole, writing nothing; within it, the runs start', async () => {
    const f = fakes();
    for (let i = 0; i < 3; i++) f.flows.set(`fl_${i}`, flowOf(`fl_${i}`, 'order_paid'));
    const trigger = triggerOf('order_paid');
    f.triggers.set(trigger.id, trigger);
    const requeued: { triggerId: string; delay: number | undefined; deferrals: number | undefined }[] = [];
    let budget = 2;
    const deps = {
      ...f.deps,
      admission: {
        admit: async (_storeId: string, runs: number) => {
          if (runs > budget) return false;
          budget -= runs;
          return true;
        },
      },
      flowQueue: {
        trigger: async (_storeId: string, triggerId: string, delay?: number, deferrals?: number) => {
          requeued.push({ triggerId, delay, deferrals });
        },
      },
    };
    const message = { v: 1, type: 'trigger', storeId: STORE, triggerId: trigger.id } as const;
    expect(await handleFlowMessage(deps, message)).toMatchObject({ deferredSeconds: 2 });
    expect(requeued).toEqual([{ triggerId: trigger.id, delay: 2, deferrals: 1 }]);
    expect(f.runs.size).toBe(0);
    expect(f.sent).toHaveLength(0);

    // Put off again and again, it waits longer each time (so a long backlog is not re-read every 2 s), up to 64 s.
    for (const [deferrals, delay] of [
      [1, 4],
      [2, 8],
      [5, 64],
      [40, 64],
    ] as const) {
      requeued.length = 0;
      await handleFlowMessage(deps, { ...message, deferrals });
      expect(requeued).toEqual([{ triggerId: trigger.id, delay, deferrals: deferrals + 1 }]);
    }
    expect(f.runs.size).toBe(0);

    budget = 3;
    await handleFlowMessage(deps, message);
    expect(f.runs.size).toBe(3);
    expect(f.sent).toHaveLength(3);
  });
});

describe('limiterAdmission', () => {
  it('lets a trigger of one flow through 50 times a second and one of 50 flows once, all or nothing', async () => {
    const limiter = new MemoryRateLimiter();
    limiter.honourLimits = true;
    const admission = limiterAdmission(limiter, 50);
    expect(await admission.admit('st_a', 50)).toBe(true);
    expect(await admission.admit('st_a', 50)).toBe(false);

    const other = new MemoryRateLimiter();
    other.honourLimits = true;
    const single = limiterAdmission(other, 50);
    const answers = await Promise.all(Array.from({ length: 51 }, () => single.admit('st_b', 1)));
    expect(answers.filter(Boolean)).toHaveLength(50);
  });
});
