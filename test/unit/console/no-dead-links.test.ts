/**
 * Merchant pages link only to places that exist and show what a merchant wrote: on a flow with a split whose branches
 * hold a wait and emails, every in-page link of the flow page targets an id the settings page has (steps the settings
 * page cannot edit get no link), and neither page shows step ids, SES placeholders or documentation paths.
 */
import { describe, expect, it } from 'vitest';
import { flowStats } from '#shared/domain/attribution/attribute.ts';
import { asWritten } from '#shared/domain/campaigns/content.ts';
import type { Flow } from '#shared/domain/flows/flow.ts';
import { flowDetailPage } from '#shared/http/console/flow-pages.ts';
import { flowSettingsPage } from '#shared/http/console/flow-settings-page.ts';
import { memoryAttribution } from '#test/support/memory/attribution.ts';

const NOW = Date.parse('2026-11-20T10:00:00Z');
const STORE = 'st_console';
const email = (id: string, subject: string) => ({
  type: 'email' as const,
  id,
  from: { email: 's@x.example' },
  subject,
});
const flow: Flow = {
  storeId: STORE,
  id: 'fl_abcdefghij0123456789',
  name: 'Waits and a split',
  trigger: 'order_paid',
  enabled: true,
  reentry: { type: 'once_per_subject' },
  consent: 'transactional',
  steps: [
    { type: 'wait', id: 'first-wait', seconds: 3600 },
    {
      type: 'split',
      id: 'the-split',
      branches: [
        { id: 'a', percent: 50, steps: [{ type: 'wait', id: 'branch-wait', seconds: 60 }, email('mail-a', 'A')] },
        { id: 'b', percent: 50, steps: [email('mail-b', 'B')] },
      ],
    },
    {
      type: 'exit_if',
      id: 'stop-if',
      condition: { match: 'all', conditions: [{ field: 'order.total_price', op: 'greater_than', value: 1 }] },
    },
  ],
  createdAt: NOW,
  updatedAt: NOW,
  revision: 1,
};

const STEP_IDS = ['first-wait', 'the-split', 'branch-wait', 'mail-a', 'mail-b', 'stop-if'];
/** Text a merchant sees: the page without its tags and attributes (ids in URLs and data attributes are not shown). */
const visible = (html: string) => html.replace(/<[^>]*>/g, ' ');

describe('merchant pages of a flow', () => {
  it('link only to ids the target page has, and show no step ids, placeholders or doc paths', async () => {
    const stats = await flowStats(
      { attribution: memoryAttribution().store, flows: { get: async () => flow }, clock: { now: () => NOW } },
      STORE,
      flow.id,
      {},
    );
    const detail = String(flowDetailPage({ storeId: STORE, name: 'Shop' }, { flow, stats, recent: [] }).body);
    const settings = String(
      flowSettingsPage(
        { storeId: STORE, name: 'Shop' },
        {
          flow: flow as Parameters<typeof flowSettingsPage>[1]['flow'],
          fields: {
            name: flow.name,
            entry: '',
            revision: '1',
            waits: { 'first-wait': { amount: '1', unit: 'hours' } },
            exits: { 'stop-if': '{}' },
          },
        },
      ).body,
    );
    const anchors = [...detail.matchAll(/href="[^"#]*\/settings#([^"]+)"/g)].map((m) => m[1]);
    expect(anchors.sort()).toEqual(['step-first-wait', 'step-stop-if']);
    for (const anchor of anchors) expect(settings).toContain(`id="${anchor}"`);
    for (const page of [detail, settings]) {
      const text = visible(page);
      for (const id of STEP_IDS) expect(text).not.toMatch(new RegExp(`\\b${id}\\b`));
      expect(text).not.toMatch(/docs\/|\{\{\s*sf_/);
    }
  });

  it("shows a campaign batch's subject as the merchant wrote it, not SES's placeholders", () => {
    expect(asWritten('Hi {{sf_first_name}}, {{{sf_email_html}}} · {{sf_unsubscribe_url}}')).toBe(
      'Hi {{ contact.first_name }}, {{ contact.email }} · {{ unsubscribe_url }}',
    );
    expect(asWritten('Hello {{name}}')).toBe('Hello {{name}}');
  });
});
