/**
 * Quiet hours in a campaign (docs/smart-sending.md "Campaigns"), on in-memory ports: a recipient inside the store's
 * quiet hours in its zone is held in a send batch of its release minute on the timer wheel, recorded `deferred`, and
 * released to the send path once when the minute's tick fires; a cancel before then sends nothing; a repeated page
 * holds nothing twice; with quiet hours off, nothing changes.
 */
import { describe, expect, it } from 'vitest';
import { campaignTimerMessage } from '#shared/domain/campaigns/campaign-message.ts';
import { cancelCampaign, createCampaign, listCampaignRecipients } from '#shared/domain/campaigns/manage-campaigns.ts';
import { type Campaign, campaignStatus } from '#shared/domain/campaigns/model.ts';
import { heldBatchId } from '#shared/domain/campaigns/page-batch.ts';
import type { CampaignMessage } from '#shared/domain/campaigns/ports.ts';
import { type CampaignOutcome, handleCampaignMessage, pageBatchId } from '#shared/domain/campaigns/run-campaign.ts';
import type { CampaignTimerPayload } from '#shared/domain/timers/model.ts';
import { releaseTick } from '#shared/domain/timers/wheel.ts';
import { CAMPAIGN_STORE, campaignFakes, campaignRequest, subscriber } from '#test/support/memory/campaigns.ts';

const S1 = 'seg_aaaaaaaaaaaaaaaaaaaa';
const H = 3600_000;
const QUIET = { start: '21:00', end: '08:00' } as const;

/**
 * The fakes' clock is 2026-01-01 00:00 UTC: 09:00 in Tokyo (sending), 00:00 in London (quiet until 08:00 UTC), 01:00
 * in Paris (quiet until 07:00 UTC), 00:00 in the store's zone, UTC (quiet until 08:00 UTC).
 */
const setup = (quiet = true) => {
  const fakes = campaignFakes();
  if (quiet) fakes.limits.smartSending = { quietHours: QUIET };
  fakes.segment(S1, [
    subscriber('a-tokyo', { attributes: { time_zone: 'Asia/Tokyo' } }),
    subscriber('b-london', { attributes: { time_zone: 'Europe/London' } }),
    subscriber('c-paris', { attributes: {}, countryCode: 'FR' }),
    subscriber('d-osaka', { attributes: { time_zone: 'Asia/Tokyo' } }),
  ]);
  return fakes;
};

/** One page for the four contacts. */
const PAGE = 10;

const startNow = async (fakes: ReturnType<typeof campaignFakes>) => {
  const created = await createCampaign(fakes.manage, CAMPAIGN_STORE, campaignRequest(S1));
  const start = fakes.queued.shift() as CampaignMessage;
  await handleCampaignMessage({ ...fakes.worker, pageSize: PAGE }, start);
  return created;
};

/** Each address and the batches it is in. */
const batchesOf = (fakes: ReturnType<typeof campaignFakes>) => {
  const found = new Map<string, string[]>();
  for (const [id, { recipients }] of fakes.batches) {
    for (const r of recipients) found.set(r.email, [...(found.get(r.email) ?? []), id]);
  }
  return found;
};

/** Fires the store's tick of `minute` as the timer worker would: each due campaign timer to the campaigns queue. */
const tick = (fakes: ReturnType<typeof campaignFakes>, minute: number) =>
  releaseTick(
    {
      buckets: fakes.buckets,
      flowQueue: { resume: async () => undefined },
      campaignStarts: {
        start: async (timer: CampaignTimerPayload) => void fakes.queued.push(campaignTimerMessage(timer)),
      },
    },
    { v: 1, kind: 'tick', storeId: CAMPAIGN_STORE, minute },
  );

const runQueued = async (fakes: ReturnType<typeof campaignFakes>) => {
  const outcomes: CampaignOutcome[] = [];
  while (fakes.queued.length > 0) {
    outcomes.push(await handleCampaignMessage(fakes.worker, fakes.queued.shift() as CampaignMessage));
  }
  return outcomes;
};

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

describe('quiet hours in a campaign', () => {
  it('sends recipients outside their quiet hours now, holds the others to their window’s end', async () => {
    const fakes = setup();
    const now = fakes.clock.now;
    const created = await startNow(fakes);
    const page = pageBatchId(created.id, 0);
    const london = heldBatchId(created.id, 0, now + 8 * H);
    const paris = heldBatchId(created.id, 0, now + 7 * H);
    expect(Object.fromEntries(batchesOf(fakes))).toEqual({
      'a-tokyo@example.com': [page],
      'b-london@example.com': [london],
      'c-paris@example.com': [paris],
      'd-osaka@example.com': [page],
    });
    // Only the page's batch goes now; the held ones wait on the wheel, each in its minute's bucket.
    expect(fakes.startedBatches).toEqual([page]);
    expect((await fakes.buckets.due(CAMPAIGN_STORE, now + 8 * H)).items.map((i) => i.payload)).toEqual([
      { v: 1, kind: 'campaign', storeId: CAMPAIGN_STORE, campaignId: created.id, batchId: london },
    ]);
    expect((await fakes.buckets.due(CAMPAIGN_STORE, now + 7 * H)).items).toHaveLength(1);
    // The held batches' chunks are numbered after the page's, so each is counted once for the campaign.
    expect(fakes.batches.get(page)?.batch.campaignChunkOffset).toBeUndefined();
    expect(fakes.batches.get(paris)?.batch).toMatchObject({ campaignPage: 0, campaignChunkOffset: 1 });
    expect(fakes.batches.get(london)?.batch).toMatchObject({ campaignPage: 0, campaignChunkOffset: 2 });

    const campaign = fakes.campaigns.get(created.id);
    expect(campaign?.progress).toEqual({ recipients: 4, queued: 4, skipped: 0, deferred: 2, sent: 0, failed: 0 });
    const listed = await listCampaignRecipients(fakes.read, CAMPAIGN_STORE, created.id, { limit: 10 });
    expect(listed.list[1]).toEqual({
      customerId: 'b-london',
      email: 'b-london@example.com',
      status: 'deferred',
      reason: 'quiet_hours',
      until: (now + 8 * H) / 1000,
      timeZone: 'Europe/London',
      zoneFrom: 'contact',
      localTime: '00:00',
    });
    expect(listed.list[2]).toMatchObject({ status: 'deferred', timeZone: 'Europe/Paris', zoneFrom: 'country' });
    // The recent sends count the held ones at the time they go (the frequency cap measures from then).
    expect(fakes.recentSends.get('b-london@example.com')).toEqual([now + 8 * H]);
    expect(fakes.recentSends.get('a-tokyo@example.com')).toEqual([now]);
  });

  it('releases each held batch once when its minute’s tick fires; the campaign is sent once they are', async () => {
    const fakes = setup();
    const now = fakes.clock.now;
    const created = await startNow(fakes);
    const london = heldBatchId(created.id, 0, now + 8 * H);
    const paris = heldBatchId(created.id, 0, now + 7 * H);
    fakes.clock.now = now + 7 * H;
    expect(await tick(fakes, now + 7 * H)).toBe(1);
    expect(await runQueued(fakes)).toEqual([{ released: paris }]);
    // The same tick again (fired twice) finds its bucket empty.
    expect(await tick(fakes, now + 7 * H)).toBe(0);
    expect(fakes.startedBatches).toEqual([pageBatchId(created.id, 0), paris]);
    fakes.clock.now = now + 8 * H;
    await tick(fakes, now + 8 * H);
    await runQueued(fakes);
    expect(fakes.startedBatches).toEqual([pageBatchId(created.id, 0), paris, london]);

    // Still sending until every queued recipient, held ones included, has its outcome.
    const counted = async (batchId: string) => {
      const batch = fakes.batches.get(batchId)?.batch;
      const chunk = { page: batch?.campaignPage ?? 0, chunk: batch?.campaignChunkOffset ?? 0 };
      await fakes.worker.campaigns.addOutcome(CAMPAIGN_STORE, created.id, chunk, {
        sent: fakes.batches.get(batchId)?.recipients.length ?? 0,
        failed: 0,
      });
    };
    await counted(pageBatchId(created.id, 0));
    await counted(paris);
    expect(campaignStatus(fakes.campaigns.get(created.id) as Campaign)).toBe('sending');
    await counted(london);
    await counted(london);
    expect(fakes.campaigns.get(created.id)?.progress).toMatchObject({ queued: 4, sent: 4 });
    expect(campaignStatus(fakes.campaigns.get(created.id) as Campaign)).toBe('sent');
  });

  it('never sends held recipients of a campaign cancelled before their release: they answer cancelled', async () => {
    const fakes = setup();
    const now = fakes.clock.now;
    const created = await startNow(fakes);
    expect(campaignStatus(fakes.campaigns.get(created.id) as Campaign)).toBe('sending');
    await cancelCampaign(fakes.manage, CAMPAIGN_STORE, created.id);
    await tick(fakes, now + 7 * H);
    await tick(fakes, now + 8 * H);
    expect(await runQueued(fakes)).toEqual([
      { skipped: 'campaign is cancelled' },
      { skipped: 'campaign is cancelled' },
    ]);
    expect(fakes.startedBatches).toEqual([pageBatchId(created.id, 0)]);
    const listed = await listCampaignRecipients(fakes.read, CAMPAIGN_STORE, created.id, { limit: 10 });
    expect(listed.list.map((r) => [r.customerId, r.status, r.reason])).toEqual([
      ['a-tokyo', 'skipped', 'cancelled'],
      ['b-london', 'skipped', 'cancelled'],
      ['c-paris', 'skipped', 'cancelled'],
      ['d-osaka', 'skipped', 'cancelled'],
    ]);
  });

  it('holds nothing twice when a page is walked again, and charges the daily cap once', async () => {
    const fakes = setup();
    fakes.limits.dailyCap = 100;
    const created = await createCampaign(fakes.manage, CAMPAIGN_STORE, campaignRequest(S1));
    const start = fakes.queued.shift() as CampaignMessage;
    const flaky = { ...recordFailingOnce(fakes), pageSize: PAGE };
    await expect(handleCampaignMessage(flaky, start)).rejects.toThrow('DynamoDB unavailable');
    const batches = [...fakes.batches.keys()].sort();
    const entries = [...fakes.buckets.buckets.values()].map((b) => [...b.keys()]);
    await handleCampaignMessage(flaky, { v: 1, type: 'walk', storeId: CAMPAIGN_STORE, campaignId: created.id });
    expect([...fakes.batches.keys()].sort()).toEqual(batches);
    expect(batches).toHaveLength(3);
    expect([...fakes.buckets.buckets.values()].map((b) => [...b.keys()])).toEqual(entries);
    expect(entries.flat()).toHaveLength(2);
    expect(fakes.limits.sentToday).toBe(4);
    expect(fakes.recentSends.get('b-london@example.com')).toHaveLength(1);
    expect(fakes.campaigns.get(created.id)?.progress).toMatchObject({ recipients: 4, queued: 4, deferred: 2 });
    // Every address in one batch only.
    expect([...batchesOf(fakes).values()].every((ids) => ids.length === 1)).toBe(true);
  });

  it('holds the same recipients when a page is walked again after their window ended', async () => {
    const fakes = setup();
    const start = Date.UTC(2026, 0, 1, 7, 59);
    // 07:59 in London: quiet until 08:00; 08:59 in Paris and 16:59 in Tokyo: sending.
    fakes.clock.now = start;
    const created = await createCampaign(fakes.manage, CAMPAIGN_STORE, campaignRequest(S1));
    const flaky = { ...recordFailingOnce(fakes), pageSize: PAGE };
    await expect(handleCampaignMessage(flaky, fakes.queued.shift() as CampaignMessage)).rejects.toThrow(
      'DynamoDB unavailable',
    );
    const london = heldBatchId(created.id, 0, start + 60_000);
    expect(fakes.schedules.live.get(`campaign-${created.id}-${london}`)?.at).toBe(start + 60_000);
    // The queue's retry comes after London's window ended: the page is judged as of when it became due, so London is
    // in the same held batch, queued at once, and in no other batch.
    fakes.clock.now = start + 6 * 60_000;
    await handleCampaignMessage(flaky, { v: 1, type: 'walk', storeId: CAMPAIGN_STORE, campaignId: created.id });
    expect(batchesOf(fakes).get('b-london@example.com')).toEqual([london]);
    expect([...batchesOf(fakes).values()].every((ids) => ids.length === 1)).toBe(true);
    expect(fakes.startedBatches).toEqual([pageBatchId(created.id, 0), pageBatchId(created.id, 0), london]);
    expect(fakes.campaigns.get(created.id)?.progress).toMatchObject({ recipients: 4, queued: 4, deferred: 1 });
  });

  it('skips a held recipient the frequency cap would hold at its release time', async () => {
    const fakes = setup();
    const now = fakes.clock.now;
    fakes.limits.smartSending = { quietHours: QUIET, frequencyCap: { minHoursBetween: 16 } };
    // London was mailed 9 hours ago: at its release (08:00) that is 17 hours, so it goes; Paris 2 hours ago: at its
    // release (07:00) that is 9 hours, so it is skipped; Osaka, sent now, 1 hour ago: skipped.
    fakes.recentSends.set('b-london@example.com', [now - 9 * H]);
    fakes.recentSends.set('c-paris@example.com', [now - 2 * H]);
    fakes.recentSends.set('d-osaka@example.com', [now - H]);
    const created = await startNow(fakes);
    const taken = fakes.recipients.get(created.id);
    expect(taken?.get('b-london')).toMatchObject({ status: 'deferred', reason: 'quiet_hours' });
    expect(taken?.get('c-paris')).toMatchObject({ status: 'skipped', reason: 'frequency_cap' });
    expect(taken?.get('d-osaka')).toMatchObject({ status: 'skipped', reason: 'frequency_cap' });
    expect(fakes.campaigns.get(created.id)?.progress).toMatchObject({ queued: 2, skipped: 2, deferred: 1 });
  });

  it('changes nothing with quiet hours off: every recipient queued now, no timer, no deferred count', async () => {
    const fakes = setup(false);
    fakes.limits.smartSending = { timeZone: 'Europe/Paris' };
    const created = await startNow(fakes);
    expect([...fakes.batches.keys()]).toEqual([pageBatchId(created.id, 0)]);
    expect(fakes.startedBatches).toEqual([pageBatchId(created.id, 0)]);
    expect(fakes.buckets.buckets.size).toBe(0);
    expect(fakes.schedules.calls).toBe(0);
    expect(fakes.campaigns.get(created.id)?.progress).toEqual({
      recipients: 4,
      queued: 4,
      skipped: 0,
      sent: 0,
      failed: 0,
    });
    expect([...(fakes.recipients.get(created.id)?.values() ?? [])].map((r) => r.status)).toEqual([
      'queued',
      'queued',
      'queued',
      'queued',
    ]);
  });
});
