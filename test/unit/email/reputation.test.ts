/**
 * The bounce and complaint guard: one store's bad list must not put the shared SES account at risk. Past SES's pause
 * levels, on a handful of events, its marketing mail pauses (bulk refused, marketing flow email skipped);
 * transactional goes on. Past SES's review levels, on a few events, the store is warned; one complaint is noise.
 */
import { describe, expect, it } from 'vitest';
import {
  pauseReason,
  REPUTATION,
  reputationBuffer,
  reputationDays,
  standingFrom,
  standingOf,
} from '#shared/domain/email/reputation.ts';
import { handleTrigger } from '#shared/domain/flows/enter-run.ts';
import { runIdOf } from '#shared/domain/flows/run.ts';
import { fakes, flowOf, STORE, triggerOf } from '#test/support/memory/flow-engine.ts';

describe('the sending standing', () => {
  it('judges only stores with enough volume', () => {
    expect(standingFrom({ delivered: 100, bounced: 50, complained: 5 })).toEqual({ state: 'ok' });
  });

  it('pauses nothing and warns nobody for one complaint in 345 deliveries (0.29 %: one person)', () => {
    expect(standingFrom({ delivered: 345, bounced: 0, complained: 1 })).toEqual({ state: 'ok' });
    expect(pauseReason({ delivered: 345, bounced: 0, complained: 1 })).toBeUndefined();
  });

  it('warns past SES’s review levels (5 % bounces, 0.1 % complaints) on a few events, and pauses nothing', () => {
    expect(standingFrom({ delivered: 930, bounced: 70, complained: 0 })).toEqual({
      state: 'warning',
      reason: 'its bounce rate over the last two days is 7% (70 of 1000), above 5%',
    });
    expect(standingFrom({ delivered: 1000, bounced: 0, complained: 3 })).toEqual({
      state: 'warning',
      reason: 'its complaint rate over the last two days is 0.3% (3 of 1000), above 0.1%',
    });
    expect(pauseReason({ delivered: 930, bounced: 70, complained: 3 })).toBeUndefined();
    // 20 hard bounces of made-up sign-ups among 275 deliveries: 7.27 %, a warning, not a pause.
    expect(standingFrom({ delivered: 255, bounced: 20, complained: 0 }).state).toBe('warning');
  });

  it('pauses past SES’s pause levels (10 % bounces, 0.5 % complaints) on a handful of events, naming the rate', () => {
    expect(pauseReason({ delivered: 880, bounced: 120, complained: 0 })).toBe(
      'its bounce rate over the last two days is 12% (120 of 1000), above 10%',
    );
    expect(pauseReason({ delivered: 1000, bounced: 0, complained: 6 })).toBe(
      'its complaint rate over the last two days is 0.6% (6 of 1000), above 0.5%',
    );
    // A small store with several real complaints is paused: five people complained.
    expect(standingFrom({ delivered: 300, bounced: 0, complained: 5 }).state).toBe('paused');
    // Too few events behind a rate over the level: a warning at most.
    expect(standingFrom({ delivered: 200, bounced: 0, complained: 4 }).state).toBe('warning');
  });

  it('judges bounces and complaints apart, and says the graver', () => {
    const both = standingFrom({ delivered: 930, bounced: 70, complained: 6 });
    expect(both).toEqual({
      state: 'paused',
      reason: 'its complaint rate over the last two days is 0.6% (6 of 1000), above 0.5%',
    });
  });

  it('reads today and yesterday (UTC)', async () => {
    const read: string[][] = [];
    const check = standingOf(
      {
        counts: async (_storeId, days) => {
          read.push([...days]);
          return { delivered: REPUTATION.minVolume, bounced: 100, complained: 0 };
        },
      },
      { now: () => Date.UTC(2026, 10, 24, 0, 30) },
    );
    expect(await check('st_1')).toMatch(/bounce rate/);
    expect(read).toEqual([['20261124', '20261123']]);
    expect(reputationDays(Date.UTC(2026, 0, 1, 12))).toEqual(['20260101', '20251231']);
  });
});

describe('a paused store', () => {
  it('skips its marketing flow email with the reason and the alarm metric, and still sends transactional mail', async () => {
    const f = fakes();
    const paused: string[] = [];
    const deps = {
      ...f.deps,
      standing: async () => 'its bounce rate over the last two days is 9%, above 5%',
      onPaused: (storeId: string) => void paused.push(storeId),
    };
    f.flows.set('fl_order', flowOf('fl_order', 'order_paid'));
    f.flows.set('fl_promo', flowOf('fl_promo', 'order_paid', { consent: 'not_unsubscribed' }));
    const trigger = triggerOf('order_paid');
    await handleTrigger(deps, trigger);
    expect(f.runs.get(runIdOf(STORE, 'fl_promo', trigger.id))?.events.at(-1)).toMatchObject({
      type: 'exited',
      reason: 'sending_paused',
      detail: { reason: 'its bounce rate over the last two days is 9%, above 5%' },
    });
    expect(f.runs.get(runIdOf(STORE, 'fl_order', trigger.id))?.status).toBe('completed');
    expect(f.sent).toHaveLength(1);
    expect(paused).toEqual([STORE]);
  });
});

describe('reputationBuffer', () => {
  it('writes one count per store, day and kind at the flush, and keeps a failed one for the next', async () => {
    const writes: [string, string, string, number][] = [];
    let failing = true;
    const { reputation, flush } = reputationBuffer({
      count: async (storeId, day, event, n = 1) => {
        if (failing && event === 'bounced') throw new Error('throttled');
        writes.push([storeId, day, event, n]);
      },
      counts: async () => ({ delivered: 0, bounced: 0, complained: 0 }),
      reset: async () => {},
    });
    for (let i = 0; i < 40; i++) await reputation.count('st_a', '20261125', 'delivered');
    await reputation.count('st_b', '20261125', 'delivered');
    await reputation.count('st_a', '20261125', 'bounced');
    await reputation.count('st_a', '20261125', 'bounced');
    expect(writes).toEqual([]);

    await expect(flush()).rejects.toThrow('throttled');
    expect(writes).toEqual([
      ['st_a', '20261125', 'delivered', 40],
      ['st_b', '20261125', 'delivered', 1],
    ]);
    failing = false;
    await reputation.count('st_a', '20261125', 'bounced');
    await flush();
    expect(writes.slice(2)).toEqual([['st_a', '20261125', 'bounced', 3]]);
    await flush();
    expect(writes).toHaveLength(3);
  });
});
