/** The campaign walk's rules, on in-memory ports: each contact once, exclusions, consent, cancel, retries, the cap. */
import { describe, expect, it } from 'vitest';
import type { CampaignRequest } from '#shared/domain/campaigns/campaign-request.ts';
import { cancelCampaign, createCampaign, listCampaignRecipients } from '#shared/domain/campaigns/manage-campaigns.ts';
import { campaignStatus } from '#shared/domain/campaigns/model.ts';
import { handleCampaignMessage, pageBatchId } from '#shared/domain/campaigns/run-campaign.ts';
import {
  CAMPAIGN_STORE,
  campaignFakes,
  campaignRequest,
  SENDER_EMAIL,
  subscriber,
} from '#test/support/memory/campaigns.ts';

const S1 = 'seg_aaaaaaaaaaaaaaaaaaaa';
const S2 = 'seg_bbbbbbbbbbbbbbbbbbbb';
const OUT = 'seg_cccccccccccccccccccc';

const request = (extra: Partial<CampaignRequest> = {}): CampaignRequest => campaignRequest(S1, extra);

const ids = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, i) => subscriber(`${prefix}${String(i).padStart(2, '0')}`));

/** Creates a campaign due now and runs its start message. */
const startNow = async (fakes: ReturnType<typeof campaignFakes>, extra: Partial<CampaignRequest> = {}) => {
  const created = await createCampaign(fakes.manage, CAMPAIGN_STORE, request(extra));
  const start = fakes.queued.shift();
  expect(start).toEqual({ v: 1, type: 'start', storeId: CAMPAIGN_STORE, campaignId: created.id });
  return { created, outcome: await handleCampaignMessage(fakes.worker, start as NonNullable<typeof start>) };
};

const sentTo = (fakes: ReturnType<typeof campaignFakes>) =>
  [...fakes.batches.values()].flatMap((b) => b.recipients.map((r) => r.email)).sort();

/** The worker's ports with the page record failing once (the queue's retry walks the same page again). */
const recordFailingOnce = (fakes: ReturnType<typeof campaignFakes>) => {
  const record = fakes.worker.campaigns.recordPage;
  let failures = 1;
  return {
    ...fakes.worker,
    campaigns: {
      ...fakes.worker.campaigns,
      recordPage: async (...args: Parameters<typeof record>) => {
        if (failures-- > 0) throw new Error('DynamoDB unavailable');
        return record(...args);
      },
    },
  };
};

describe('campaign walk', () => {
  it('hands every member of several segments to the send path once, minus the excluded ones', async () => {
    const fakes = campaignFakes();
    const a = ids('a', 5);
    fakes.segment(S1, a);
    // a00 and a01 are in both segments; b00 only in the second.
    fakes.segment(
      S2,
      [a[0], a[1], subscriber('b00')].filter((c) => c !== undefined),
    );
    fakes.segment(
      OUT,
      [a[4]].filter((c) => c !== undefined),
    );
    const { created, outcome } = await startNow(fakes, { segments: [S1, S2], excludeSegments: [OUT] });
    expect(outcome).toMatchObject({ walked: true, continued: false });
    expect(sentTo(fakes)).toEqual([
      'a00@example.com',
      'a01@example.com',
      'a02@example.com',
      'a03@example.com',
      'b00@example.com',
    ]);
    const campaign = fakes.campaigns.get(created.id);
    expect(campaign).toMatchObject({
      state: 'sending',
      progress: { recipients: 5, queued: 5, skipped: 0, sent: 0, failed: 0 },
    });
    expect(campaign?.walkedAt).toBe(fakes.clock.now);
    // Every batch stored was queued on the send path, with the campaign's template and each recipient's values.
    expect(fakes.startedBatches.sort()).toEqual([...fakes.batches.keys()].sort());
    const [first] = [...fakes.batches.values()];
    expect(first?.batch).toMatchObject({
      campaignId: created.id,
      subject: 'Hello {{sf_first_name}}',
      // The HTML part names the escaped copy of each contact field (SES escapes nothing).
      html: '<p>Hi {{sf_first_name_html}}</p>',
      from: { email: SENDER_EMAIL, name: 'Shop' },
    });
    expect(first?.recipients[0]).toMatchObject({
      status: 'queued',
      name: 'Ada',
      substitutionData: {
        sf_first_name: 'Ada',
        sf_first_name_html: 'Ada',
        sf_email: 'a00@example.com',
        sf_customer_id: 'a00',
      },
    });
    // Pages of three: the first segment's two pages without the condition (they cannot overlap), the second's with it.
    expect(fakes.claims).toEqual([
      { alone: true, count: 3 },
      { alone: true, count: 1 },
      { alone: false, count: 3 },
    ]);
    // The walk's place among the store's active campaigns is given back at its end.
    expect(fakes.limits.active.size).toBe(0);
  });

  it('records contacts without consent, suppressed or without an address as skipped, with the reason', async () => {
    const fakes = campaignFakes();
    fakes.segment(S1, [
      subscriber('c1'),
      subscriber('c2', { emailConsent: { state: 'unsubscribed' } }),
      subscriber('c3'),
      subscriber('c4', { email: undefined }),
      subscriber('c5', { emailConsent: undefined }),
    ]);
    fakes.suppressed.add('c3@example.com');
    const { created } = await startNow(fakes);
    expect(sentTo(fakes)).toEqual(['c1@example.com']);
    const taken = fakes.recipients.get(created.id);
    expect(taken?.get('c2')).toMatchObject({ status: 'skipped', reason: 'not_subscribed' });
    expect(taken?.get('c3')).toMatchObject({ status: 'skipped', reason: 'suppressed' });
    expect(taken?.get('c4')).toMatchObject({ status: 'skipped', reason: 'no_email' });
    expect(taken?.get('c5')).toMatchObject({ status: 'skipped', reason: 'not_subscribed' });
    expect(fakes.campaigns.get(created.id)?.progress).toMatchObject({ recipients: 5, queued: 1, skipped: 4 });
  });

  it('starts once: a second start of the same campaign (a tick fired twice) sends nothing more', async () => {
    const fakes = campaignFakes();
    fakes.segment(S1, ids('a', 4));
    const { created } = await startNow(fakes);
    const batches = fakes.batches.size;
    const again = await handleCampaignMessage(fakes.worker, {
      v: 1,
      type: 'start',
      storeId: CAMPAIGN_STORE,
      campaignId: created.id,
    });
    // The walk ended already: the repeated start resumes nothing.
    expect(again).toEqual({ pages: 0, walked: true, continued: false });
    expect(fakes.batches.size).toBe(batches);
    expect(fakes.limits.active.size).toBe(0);
    expect(fakes.campaigns.get(created.id)?.progress.recipients).toBe(4);
  });

  it('resumes the walk on a start redelivered after the process stopped mid-walk: each member mailed once, sent', async () => {
    const fakes = campaignFakes();
    fakes.segment(S1, ids('a', 8));
    const created = await createCampaign(fakes.manage, CAMPAIGN_STORE, request());
    const start = fakes.queued.shift() as NonNullable<(typeof fakes.queued)[number]>;
    // The process stops while reading the second page (a SIGKILL): the start message is not acknowledged.
    const page = fakes.worker.members.page;
    let reads = 0;
    const killed = {
      ...fakes.worker,
      members: {
        ...fakes.worker.members,
        page: async (...args: Parameters<typeof page>) => {
          if (++reads === 2) throw new Error('killed');
          return page(...args);
        },
      },
    };
    await expect(handleCampaignMessage(killed, start)).rejects.toThrow('killed');
    expect(sentTo(fakes)).toHaveLength(3);
    expect(fakes.campaigns.get(created.id)?.state).toBe('sending');

    // The queue hands the same start message again, to a new process.
    const again = await handleCampaignMessage(fakes.worker, start);
    expect(again).toMatchObject({ walked: true, continued: false });
    expect(sentTo(fakes)).toEqual(ids('a', 8).map((c) => c.email));
    expect(fakes.limits.active.size).toBe(0);
    // The send worker reports every batch: the campaign is sent.
    for (const { batch, recipients } of fakes.batches.values()) {
      await fakes.worker.campaigns.addOutcome(CAMPAIGN_STORE, created.id, undefined, {
        sent: recipients.length,
        failed: 0,
      });
      expect(batch.campaignId).toBe(created.id);
    }
    const campaign = fakes.campaigns.get(created.id);
    expect(campaign?.progress).toMatchObject({ recipients: 8, queued: 8, sent: 8 });
    expect(campaign && campaignStatus(campaign)).toBe('sent');
  });

  it("gives the store's place back on the next delivery when the process stopped between the walk's end and its release", async () => {
    const fakes = campaignFakes();
    fakes.segment(S1, ids('a', 3));
    await createCampaign(fakes.manage, CAMPAIGN_STORE, request());
    const start = fakes.queued.shift() as NonNullable<(typeof fakes.queued)[number]>;
    expect(fakes.limits.active.size).toBe(1);
    const stopped = {
      ...fakes.worker,
      active: {
        release: async () => {
          throw new Error('killed');
        },
      },
    };
    await expect(handleCampaignMessage(stopped, start)).rejects.toThrow('killed');
    expect(fakes.limits.active.size).toBe(1);
    // The same message again, to a new process: the walk is over, so only the place is given back.
    expect(await handleCampaignMessage(fakes.worker, start)).toMatchObject({ pages: 0, walked: true });
    expect(fakes.limits.active.size).toBe(0);
    expect(sentTo(fakes)).toHaveLength(3);
    // A later campaign takes the place; a further delivery of the old message gives back nothing of it.
    await createCampaign(fakes.manage, CAMPAIGN_STORE, request());
    await handleCampaignMessage(fakes.worker, start);
    expect(fakes.limits.active.size).toBe(1);
  });

  it('goes on in a new message when its time runs short, from where it stopped', async () => {
    const fakes = campaignFakes();
    fakes.segment(S1, ids('a', 7));
    const created = await createCampaign(fakes.manage, CAMPAIGN_STORE, request());
    const start = fakes.queued.shift() as NonNullable<(typeof fakes.queued)[number]>;
    const first = await handleCampaignMessage(fakes.worker, start, () => false);
    expect(first).toEqual({ pages: 1, walked: false, continued: true });
    expect(fakes.queued).toEqual([{ v: 1, type: 'walk', storeId: CAMPAIGN_STORE, campaignId: created.id }]);
    expect(sentTo(fakes)).toHaveLength(3);
    const rest = await handleCampaignMessage(
      fakes.worker,
      fakes.queued.shift() as NonNullable<(typeof fakes.queued)[number]>,
    );
    expect(rest).toMatchObject({ pages: 2, walked: true });
    expect(sentTo(fakes)).toHaveLength(7);
  });

  it('stops at the next page once cancelled, and a campaign cancelled before its start sends nothing', async () => {
    const fakes = campaignFakes();
    fakes.segment(S1, ids('a', 9));
    const created = await createCampaign(fakes.manage, CAMPAIGN_STORE, request());
    const start = fakes.queued.shift() as NonNullable<(typeof fakes.queued)[number]>;
    await handleCampaignMessage(fakes.worker, start, () => false);
    const cancelled = await cancelCampaign(fakes.manage, CAMPAIGN_STORE, created.id);
    expect(cancelled).toMatchObject({ status: 'cancelled', sentBeforeCancel: 0 });
    const walk = fakes.queued.shift() as NonNullable<(typeof fakes.queued)[number]>;
    expect(await handleCampaignMessage(fakes.worker, walk)).toEqual({ skipped: 'campaign is cancelled' });
    expect(sentTo(fakes)).toHaveLength(3);
    // Cancelled mid-walk: its place among the active ones is given back once, by the cancel.
    expect(fakes.limits.active.size).toBe(0);

    const before = await createCampaign(fakes.manage, CAMPAIGN_STORE, request({ name: 'Never' }));
    const neverStart = fakes.queued.shift() as NonNullable<(typeof fakes.queued)[number]>;
    await cancelCampaign(fakes.manage, CAMPAIGN_STORE, before.id);
    expect(await handleCampaignMessage(fakes.worker, neverStart)).toEqual({ skipped: 'campaign is cancelled' });
    expect([...fakes.batches.values()].filter((b) => b.batch.campaignId === before.id)).toEqual([]);
  });

  it('repeats a page that failed before it was recorded with the same recipients and batch, counted once', async () => {
    const fakes = campaignFakes();
    fakes.segment(S1, ids('a', 3));
    const created = await createCampaign(fakes.manage, CAMPAIGN_STORE, request());
    const start = fakes.queued.shift() as NonNullable<(typeof fakes.queued)[number]>;
    const flaky = recordFailingOnce(fakes);
    await expect(handleCampaignMessage(flaky, start)).rejects.toThrow('DynamoDB unavailable');
    // The queue's retry: the campaign is sending already, so the walk message resumes at the same page.
    await handleCampaignMessage(flaky, { v: 1, type: 'walk', storeId: CAMPAIGN_STORE, campaignId: created.id });
    expect([...fakes.batches.keys()]).toEqual([pageBatchId(created.id, 0)]);
    expect(fakes.startedBatches).toEqual([pageBatchId(created.id, 0), pageBatchId(created.id, 0)]);
    expect(fakes.campaigns.get(created.id)?.progress).toMatchObject({ recipients: 3, queued: 3 });
  });

  it("skips a page's recipients with daily_send_cap when the store's daily cap has no room for them", async () => {
    const fakes = campaignFakes();
    fakes.limits.dailyCap = 4;
    fakes.segment(S1, ids('a', 6));
    const { created } = await startNow(fakes);
    // Pages of three: the first fits under the cap of four, the second does not.
    expect(sentTo(fakes)).toEqual(['a00@example.com', 'a01@example.com', 'a02@example.com']);
    expect(fakes.recipients.get(created.id)?.get('a04')).toMatchObject({ status: 'skipped', reason: 'daily_send_cap' });
    expect(fakes.campaigns.get(created.id)?.progress).toMatchObject({ recipients: 6, queued: 3, skipped: 3 });
  });

  it('charges a page retried after its daily-cap charge once: its recipients count against the cap once', async () => {
    const fakes = campaignFakes();
    fakes.limits.dailyCap = 100;
    fakes.segment(S1, ids('a', 3));
    const created = await createCampaign(fakes.manage, CAMPAIGN_STORE, request());
    const start = fakes.queued.shift() as NonNullable<(typeof fakes.queued)[number]>;
    // The page's record fails after its charge: the queue's retry walks (and charges) the same page again.
    const flaky = recordFailingOnce(fakes);
    await expect(handleCampaignMessage(flaky, start)).rejects.toThrow('DynamoDB unavailable');
    await handleCampaignMessage(flaky, { v: 1, type: 'walk', storeId: CAMPAIGN_STORE, campaignId: created.id });
    expect(fakes.campaigns.get(created.id)?.progress).toMatchObject({ recipients: 3, queued: 3 });
    expect(fakes.limits.sentToday).toBe(3);
  });

  it('skips recipients the frequency cap holds with frequency_cap, counts the others, and not twice on a repeat', async () => {
    const fakes = campaignFakes();
    const now = fakes.clock.now;
    fakes.limits.smartSending = { frequencyCap: { minHoursBetween: 16 } };
    fakes.segment(S1, ids('a', 3));
    // a01 was mailed by a flow an hour ago; a02 a day ago.
    fakes.recentSends.set('a01@example.com', [now - 3600_000]);
    fakes.recentSends.set('a02@example.com', [now - 24 * 3600_000]);
    const created = await createCampaign(fakes.manage, CAMPAIGN_STORE, request());
    const start = fakes.queued.shift() as NonNullable<(typeof fakes.queued)[number]>;
    // The page's record fails once: the queue's retry walks the same page again.
    const flaky = recordFailingOnce(fakes);
    await expect(handleCampaignMessage(flaky, start)).rejects.toThrow('DynamoDB unavailable');
    await handleCampaignMessage(flaky, { v: 1, type: 'walk', storeId: CAMPAIGN_STORE, campaignId: created.id });

    expect(sentTo(fakes)).toEqual(['a00@example.com', 'a02@example.com']);
    expect(fakes.recipients.get(created.id)?.get('a01')).toMatchObject({ status: 'skipped', reason: 'frequency_cap' });
    expect(fakes.recipients.get(created.id)?.get('a00')).toMatchObject({ status: 'queued' });
    expect(fakes.campaigns.get(created.id)?.progress).toMatchObject({ recipients: 3, queued: 2, skipped: 1 });
    // Counted once for the campaign, beside what was there.
    expect(fakes.recentSends.get('a00@example.com')).toEqual([now]);
    expect(fakes.recentSends.get('a02@example.com')).toEqual([now - 24 * 3600_000, now]);
  });

  it('answers each recipient with the outcome the send path recorded', async () => {
    const fakes = campaignFakes();
    fakes.segment(S1, [subscriber('a1'), subscriber('a2'), subscriber('a3', { emailConsent: undefined })]);
    const { created } = await startNow(fakes);
    const stored = fakes.batches.get(pageBatchId(created.id, 0));
    if (!stored) throw new Error('no batch');
    stored.recipients[0] = { ...stored.recipients[0], status: 'sent', messageId: 'm-1', sentAt: 5_000 } as never;
    const page = await listCampaignRecipients(fakes.read, CAMPAIGN_STORE, created.id, { limit: 10 });
    expect(page.list).toEqual([
      { customerId: 'a1', email: 'a1@example.com', status: 'sent', messageId: 'm-1', sentAt: 5 },
      { customerId: 'a2', email: 'a2@example.com', status: 'queued' },
      { customerId: 'a3', email: 'a3@example.com', status: 'skipped', reason: 'not_subscribed' },
    ]);
    await cancelCampaign(fakes.manage, CAMPAIGN_STORE, created.id);
    const afterCancel = await listCampaignRecipients(fakes.read, CAMPAIGN_STORE, created.id, { limit: 10 });
    expect(afterCancel.list[1]).toEqual({
      customerId: 'a2',
      email: 'a2@example.com',
      status: 'skipped',
      reason: 'cancelled',
    });
  });
});
