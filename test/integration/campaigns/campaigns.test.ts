/**
 * Campaigns end to end on the local runtime: 5,000 contacts imported into two overlapping segments, a
 * campaign scheduled through the timer wheel (clock advance) that emails each contact exactly once, a campaign
 * cancelled before its time (nothing sent) and one cancelled during its send (the sent count stops), the
 * per-recipient outcome, and the campaign's stats after SES events.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { EMAIL_TAGS } from '#shared/domain/email/model.ts';
import { simulated } from '#test/integration/email-events/support.ts';
import {
  ensureSender,
  eventually,
  newStore,
  senderOf,
  type TestStore,
} from '#test/integration/flows/engine-support.ts';
import { importAndWait } from '#test/integration/imports/support.ts';
import { api } from '#test/support/webhooks.ts';

const CONTACTS = 5000;

let runtime: LocalRuntime;
let store: TestStore;
let everyone: string;
let vips: string;
/** Mails the local SES accepted, per campaign, per address. */
const mails = new Map<string, Map<string, number>>();
const messageIds = new Map<string, string[]>();

interface CampaignView {
  id: string;
  status: 'scheduled' | 'sending' | 'sent' | 'cancelled';
  progress: { recipients: number; queued: number; deferred: number; skipped: number; sent: number; failed: number };
  stats?: Record<string, unknown>;
  sentBeforeCancel?: number;
}

const createSegment = async (name: string, tag: string) => {
  const answer = await api(runtime, store.apiKey, 'POST', '/api/v1/segments', {
    name,
    conditions: { match: 'all', conditions: [{ field: 'contact.tags', op: 'contains', value: tag }] },
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return (answer.body as { data: { id: string } }).data.id;
};

const segmentCount = async (id: string) =>
  ((await api(runtime, store.apiKey, 'GET', `/api/v1/segments/${id}`)).body as { data?: { count: number } }).data
    ?.count;

const createCampaign = async (body: Record<string, unknown>) => {
  const answer = await api(runtime, store.apiKey, 'POST', '/api/v1/campaigns', {
    from: senderOf(store),
    subject: 'Winter sale, {{ contact.first_name }}',
    html: '<p>Hello {{ contact.first_name }}</p><a href="https://shop.example/sale">Shop</a>',
    text: 'Hello {{ contact.first_name }}',
    ...body,
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(202);
  return (answer.body as { data: CampaignView }).data;
};

const readCampaign = async (id: string) => {
  const answer = await api(runtime, store.apiKey, 'GET', `/api/v1/campaigns/${id}`);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return (answer.body as { data: CampaignView }).data;
};

/** While polling: a 503 (the local runtime busy past a route's timeout, "retry") is read as "not yet". */
const pollCampaign = async (id: string): Promise<CampaignView | undefined> => {
  const answer = await api(runtime, store.apiKey, 'GET', `/api/v1/campaigns/${id}`);
  if (answer.status === 503) return undefined;
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return (answer.body as { data: CampaignView }).data;
};

const mailed = (campaignId: string) => mails.get(campaignId) ?? new Map<string, number>();
const inFuture = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();

beforeAll(async () => {
  runtime = await startLocalRuntime({ logLevel: 'ERROR' });
  runtime.ses.onSent((sent) => {
    for (const mail of sent) {
      const campaignId = mail.tags[EMAIL_TAGS.campaign];
      if (!campaignId) continue;
      const byAddress = mails.get(campaignId) ?? new Map<string, number>();
      mails.set(campaignId, byAddress);
      for (const to of mail.to) {
        // `"P0" <c0@…>`: the bare address.
        const address = (/<([^>]+)>/.exec(to)?.[1] ?? to).toLowerCase();
        byAddress.set(address, (byAddress.get(address) ?? 0) + 1);
      }
      messageIds.set(campaignId, [...(messageIds.get(campaignId) ?? []), mail.messageId]);
    }
  });
  store = await newStore('Campaigns');
  await ensureSender(runtime, store);
  const lines = Array.from({ length: CONTACTS }, (_, i) =>
    JSON.stringify({
      id: `c-${String(i).padStart(5, '0')}`,
      email: `c${i}@campaign.example`,
      first_name: `P${i}`,
      created_at: 1_700_000_000,
      email_marketing_consent: { state: 'subscribed' },
      // Every tenth contact is in both segments: still one email.
      tags: i % 10 === 0 ? ['camp', 'vip'] : ['camp'],
    }),
  );
  // Imported before the segments exist (no per-line segment step); the segments' builds then read the contacts a
  // page of 100 at a time.
  const job = await importAndWait(runtime, store.apiKey, `${lines.join('\n')}\n`, 600_000);
  expect(job).toMatchObject({ result: 'SUCCESS', counts: { imported: CONTACTS } });
  everyone = await createSegment('Everyone', 'camp');
  vips = await createSegment('VIP', 'vip');
  await eventually(
    'segments built',
    async () =>
      (await segmentCount(everyone)) === CONTACTS && (await segmentCount(vips)) === CONTACTS / 10 ? true : undefined,
    300_000,
  );
}, 1_200_000);

afterAll(async () => {
  await runtime?.stop();
});

describe('a scheduled campaign to 5,000 contacts', () => {
  it('emails each contact exactly once when its time comes, and reports progress, outcomes and stats', async () => {
    const created = await createCampaign({ name: 'Winter sale', segments: [everyone, vips], sendAt: inFuture(10) });
    expect(created).toMatchObject({ status: 'scheduled', progress: { recipients: 0, sent: 0 } });
    expect(created.id).toMatch(/^cmp_[A-Za-z0-9]{20}$/);
    // Nothing before its time.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(mailed(created.id).size).toBe(0);
    expect((await readCampaign(created.id)).status).toBe('scheduled');

    await runtime.advanceClock(11 * 60);
    const done = await eventually(
      'the campaign sent',
      async () => {
        const campaign = await pollCampaign(created.id);
        return campaign?.status === 'sent' ? campaign : undefined;
      },
      180_000,
    );
    expect(done.progress).toEqual({
      recipients: CONTACTS,
      queued: CONTACTS,
      deferred: 0,
      skipped: 0,
      sent: CONTACTS,
      failed: 0,
    });
    const byAddress = mailed(created.id);
    expect(byAddress.size).toBe(CONTACTS);
    expect([...byAddress.values()].every((n) => n === 1)).toBe(true);

    const page = await api(runtime, store.apiKey, 'GET', `/api/v1/campaigns/${created.id}/recipients?limit=3`);
    expect(page.body).toMatchObject({
      code: 200,
      data: {
        list: [
          { customerId: 'c-00000', email: 'c0@campaign.example', status: 'sent' },
          { customerId: 'c-00001', status: 'sent' },
          { customerId: 'c-00002', status: 'sent' },
        ],
        nextCursor: expect.any(String),
      },
    });

    // SES events: deliveries are simulated for every mail by the local runtime; an open and a click on one.
    const [first] = messageIds.get(created.id) ?? [];
    await simulated(runtime, { messageId: first, type: 'open' });
    await simulated(runtime, { messageId: first, type: 'click', link: 'https://shop.example/sale' });
    const withStats = await eventually(
      'the campaign stats',
      async () => {
        const campaign = await pollCampaign(created.id);
        const stats = campaign?.stats as { delivered: number; opened: number; clicked: number } | undefined;
        return stats && stats.delivered === CONTACTS && stats.opened === 1 && stats.clicked === 1
          ? campaign
          : undefined;
      },
      180_000,
    );
    expect(withStats.stats).toMatchObject({ sent: CONTACTS, delivered: CONTACTS, opened: 1, clicked: 1, orders: 0 });

    const list = await api(runtime, store.apiKey, 'GET', '/api/v1/campaigns');
    expect(list.body).toMatchObject({ code: 200, data: { list: [{ id: created.id, status: 'sent' }] } });
    const again = await api(runtime, store.apiKey, 'POST', `/api/v1/campaigns/${created.id}/cancel`);
    expect(again.status).toBe(409);
  }, 600_000);
});

describe('cancel', () => {
  it('sends nothing when a scheduled campaign is cancelled before its time', async () => {
    const created = await createCampaign({ name: 'Never', segments: [everyone], sendAt: inFuture(20) });
    const cancelled = await api(runtime, store.apiKey, 'POST', `/api/v1/campaigns/${created.id}/cancel`);
    expect(cancelled.body).toMatchObject({ code: 200, data: { status: 'cancelled', sentBeforeCancel: 0 } });
    await runtime.advanceClock(21 * 60);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(mailed(created.id).size).toBe(0);
    expect(await readCampaign(created.id)).toMatchObject({ status: 'cancelled', progress: { recipients: 0, sent: 0 } });
  }, 60_000);

  it('stops a campaign during its send: the sent count stops short of the recipients', async () => {
    const created = await createCampaign({ name: 'Stopped', segments: [everyone], excludeSegments: [vips] });
    await eventually('the first mails', async () => (mailed(created.id).size >= 100 ? true : undefined), 60_000);
    const cancelled = await api(runtime, store.apiKey, 'POST', `/api/v1/campaigns/${created.id}/cancel`);
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    const { sentBeforeCancel } = (cancelled.body as { data: CampaignView }).data;
    // Chunks already past their check finish; nothing after them.
    await new Promise((resolve) => setTimeout(resolve, 5000));
    const settledCount = mailed(created.id).size;
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(mailed(created.id).size).toBe(settledCount);
    expect(settledCount).toBeLessThan(CONTACTS - CONTACTS / 10);
    expect(settledCount).toBeGreaterThanOrEqual(sentBeforeCancel ?? 0);
    const after = await readCampaign(created.id);
    expect(after.status).toBe('cancelled');
    expect(after.progress.sent).toBe(settledCount);
    // The vips were left out.
    expect([...mailed(created.id).keys()].some((to) => /^c\d*0@/.test(to))).toBe(false);
  }, 120_000);
});
