/**
 * The bounce and complaint guard (issue 13): one store's bad list must not put the shared SES account at risk. Over
 * the thresholds its marketing mail pauses (bulk refused, marketing flow email skipped); transactional goes on.
 */
import { describe, expect, it } from 'vitest';
import {
  pauseReason,
  REPUTATION,
  reputationBuffer,
  reputationDays,
  standingOf,
} from '#shared/domain/email/reputation.ts';
import { handleTrigger } from '#shared/domain/flows/enter-run.ts';
import { runIdOf } from '#shared/domain/flows/run.ts';
import { fakes, flowOf, STORE, triggerOf } from '#test/support/memory/flow-engine.ts';

describe('pauseReason', () => {
  it('judges only stores with enough volume', () => {
    expect(pauseReason({ delivered: 100, bounced: 50, complained: 5 })).toBeUndefined();
  });

  it('pauses above 5 % bounces or 0.1 % complaints, and names the rate', () => {
    expect(pauseReason({ delivered: 940, bounced: 60, complained: 0 })).toBe(
      'its bounce rate over the last two days is 6%, above 5%',
    );
    expect(pauseReason({ delivered: 1000, bounced: 0, complained: 2 })).toBe(
      'its complaint rate over the last two days is 0.2%, above 0.1%',
    );
    expect(pauseReason({ delivered: 950, bounced: 50, complained: 1 })).toBeUndefined();
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
