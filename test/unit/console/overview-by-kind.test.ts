/**
 * The console overview's emails by kind: flow, campaign and bulk emails each counted apart in the store's counters,
 * and every rate over its own kind's sent, so no rate mixes one kind's delivered with another's sent.
 */
import { describe, expect, it } from 'vitest';
import { bulkEmailed, emailEventClaimed, flowEmailed } from '#shared/domain/attribution/attribute.ts';
import type { Touch } from '#shared/domain/attribution/model.ts';
import { storeOverview } from '#shared/domain/console/overview.ts';
import { storeOverviewPage } from '#shared/http/console/overview-page.ts';
import { memoryAttribution } from '#test/support/memory/attribution.ts';

const NOW = Date.parse('2026-11-27T15:00:00Z');

describe('console overview by kind of email', () => {
  it('shows flow, campaign and bulk emails apart and in total, each rate over its own sent', async () => {
    const { store } = memoryAttribution();
    const flowTouch = (n: number): Extract<Touch, { kind: 'flow' }> => ({
      kind: 'flow',
      flowId: 'fl_a',
      stepId: 'email-1',
      runId: `run_${n}`,
      at: NOW,
    });
    // A realistic week: 3 flow emails, 3 delivered; a campaign of 4, all delivered, 2 opened; a bulk batch of 2, 1 bounced.
    for (let i = 0; i < 3; i++) {
      await flowEmailed(store, 'st_a', { type: 'contact', id: `c${i}` }, flowTouch(i));
      await emailEventClaimed(store, 'st_a', flowTouch(i), 'delivered');
    }
    const campaign: Touch = { kind: 'bulk', batchId: 'b_camp', campaignId: 'cm_1', at: NOW };
    await bulkEmailed(store, 'st_a', { batchId: 'b_camp', campaignId: 'cm_1' }, 4, NOW);
    for (let i = 0; i < 4; i++) await emailEventClaimed(store, 'st_a', campaign, 'delivered');
    for (let i = 0; i < 2; i++) await emailEventClaimed(store, 'st_a', campaign, 'opened');
    const bulk: Touch = { kind: 'bulk', batchId: 'b_bulk', at: NOW };
    await bulkEmailed(store, 'st_a', { batchId: 'b_bulk' }, 2, NOW);
    await emailEventClaimed(store, 'st_a', bulk, 'delivered');
    await emailEventClaimed(store, 'st_a', bulk, 'bounced');

    const overview = await storeOverview({ attribution: store, clock: { now: () => NOW } }, 'st_a', {});
    expect(overview.emails.kinds.flow).toMatchObject({ sent: 3, delivered: 3, opened: 0 });
    expect(overview.emails.kinds.campaign).toMatchObject({ sent: 4, delivered: 4, opened: 2 });
    expect(overview.emails.kinds.bulk).toMatchObject({ sent: 2, delivered: 1, bounced: 1 });
    expect(overview.emails.total).toMatchObject({ sent: 9, delivered: 8, opened: 2, bounced: 1 });

    const html = storeOverviewPage({ storeId: 'st_a', name: 'Shop' }, overview).body as string;
    const row = (id: string) => html.match(new RegExp(`<tr id="emails-${id}">.*?</tr>`))?.[0] ?? '';
    expect(row('flow')).toContain('100.0 %');
    expect(row('campaign')).toContain('50.0 %');
    expect(row('bulk')).toContain('50.0 %');
    expect(row('total')).toContain('88.9 %');
    // No rate over 100 %: every delivered, opened, clicked and bounced is over its own kind's sent.
    for (const match of html.matchAll(/(\d+(?:\.\d+)?) %/g)) expect(Number(match[1])).toBeLessThanOrEqual(100);
  });
});
