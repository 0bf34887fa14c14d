/**
 * Flow email and the shared SES rate (issue 13): flow email used to bypass the pacer. Every flow email now takes a
 * slot of its class (transactional flows first) and marketing flow email counts against the store's daily cap.
 */
import { describe, expect, it } from 'vitest';
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
    const deps = { ...f.deps, dailySendCap: 1 };
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
