/**
 * The console's flow page for a flow with a split and a holdout: the split's branch steps are listed after it with
 * their own figures and edit links, and the A/B groups section shows each group and its difference with the holdout.
 */
import { describe, expect, it } from 'vitest';
import { flowStats } from '#shared/domain/attribution/attribute.ts';
import { dayOf } from '#shared/domain/attribution/model.ts';
import type { Flow } from '#shared/domain/flows/flow.ts';
import { flowDetailPage } from '#shared/http/console/flow-pages.ts';
import { memoryAttribution } from '#test/support/memory/attribution.ts';

const NOW = Date.parse('2026-11-20T10:00:00Z');
const STORE = 'st_console';
const flow: Flow = {
  storeId: STORE,
  id: 'fl_abcdefghij0123456789',
  name: 'Thanks A/B',
  trigger: 'order_paid',
  enabled: true,
  reentry: { type: 'once_per_subject' },
  consent: 'transactional',
  holdoutPercent: 10,
  steps: [
    {
      type: 'split',
      id: 'ab',
      branches: [
        {
          id: 'a',
          percent: 50,
          steps: [{ type: 'email', id: 'mail-a', from: { email: 's@x.example' }, subject: 'A' }],
        },
        {
          id: 'b',
          percent: 50,
          steps: [{ type: 'email', id: 'mail-b', from: { email: 's@x.example' }, subject: 'B' }],
        },
      ],
    },
  ],
  createdAt: NOW,
  updatedAt: NOW,
  revision: 1,
};

describe('flow page of a flow with a split', () => {
  it('lists branch steps with their figures and shows the A/B groups against the holdout', async () => {
    const memory = memoryAttribution();
    await memory.store.add(STORE, [`flow#${flow.id}`], dayOf(NOW), {
      'group#holdout#entered': 5,
      'group#holdout#orders': 1,
      'group#holdout#revenue_EUR': 20,
      'group#holdout#revenueSq_EUR': 400,
      'group#a#entered': 4,
      'group#a#orders': 2,
      'group#a#revenue_EUR': 40,
      'group#a#revenueSq_EUR': 1000,
      'step#mail-a#emailed': 4,
    });
    const stats = await flowStats(
      { attribution: memory.store, flows: { get: async () => flow }, clock: { now: () => NOW } },
      STORE,
      flow.id,
      {},
    );
    const page = flowDetailPage({ storeId: STORE, name: 'Shop' }, { flow, stats, recent: [] }).body;

    expect(page).toContain('A/B split: <code>a</code> 50 %, <code>b</code> 50 %');
    expect(page).toMatch(/<tr data-step="mail-a">.*<td class="n">4<\/td>/);
    expect(page).toContain(`/flows/${flow.id}/steps/mail-b`);
    expect(page).toMatch(/<tr data-group="a">.*<td class="n">45 %<\/td><td class="n">4<\/td>.*10\.0000 EUR/);
    expect(page).toContain(
      '<code>a</code> − <code>holdout</code>: 6.0000 EUR per recipient (95 % interval -9.9228 to 21.9228)',
    );
    expect(page).toContain('<code>b</code> − <code>holdout</code>: — EUR per recipient (too few runs)');
  });
});

describe('flow page’s latest evaluations', () => {
  it('say why a run exited, in a merchant’s words, and what to do about a pause', async () => {
    const memory = memoryAttribution();
    const stats = await flowStats(
      { attribution: memory.store, flows: { get: async () => flow }, clock: { now: () => NOW } },
      STORE,
      flow.id,
      {},
    );
    const evaluation = {
      storeId: STORE,
      flowId: flow.id,
      triggerId: 'tr_1',
      triggerKind: 'order_paid' as const,
      subject: { type: 'order', id: 'o-1' },
      email: 'ada@example.com',
      outcome: 'entered' as const,
      runId: 'run_1',
      at: NOW,
      evaluatedAt: NOW,
    };
    const run = {
      storeId: STORE,
      id: 'run_1',
      flowId: flow.id,
      flowKind: 'order_paid' as const,
      trigger: {} as never,
      email: 'ada@example.com',
      status: 'exited' as const,
      events: [
        { at: NOW, type: 'entered' as const },
        { at: NOW, type: 'exited' as const, stepId: 'mail-a', reason: 'sending_paused' },
      ],
      startedAt: NOW,
      updatedAt: NOW,
      revision: 2,
    };
    const page = flowDetailPage({ storeId: STORE, name: 'Shop' }, { flow, stats, recent: [{ evaluation, run }] }).body;
    expect(page).toContain('Entered · run exited: marketing email is paused for this store');
    expect(page).toContain('clean the list, then ask the operator to resume sending');
    expect(page).not.toMatch(/run exited<\/td>/);
  });
});
