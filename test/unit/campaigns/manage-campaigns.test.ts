/** The campaigns API's rules, on in-memory ports: scheduling on the wheel, validation, limits, cancel, templates. */
import { describe, expect, it } from 'vitest';
import { countsFor } from '#shared/domain/attribution/model.ts';
import { type CampaignRequest, parseCampaignRequest } from '#shared/domain/campaigns/campaign-request.ts';
import { cancelCampaign, createCampaign, getCampaign } from '#shared/domain/campaigns/manage-campaigns.ts';
import { CAMPAIGN_LIMITS } from '#shared/domain/campaigns/model.ts';
import { handleCampaignMessage } from '#shared/domain/campaigns/run-campaign.ts';
import { dueMinute, releaseTick } from '#shared/domain/timers/wheel.ts';
import { memoryAttribution } from '#test/support/memory/attribution.ts';
import {
  CAMPAIGN_STORE,
  campaignFakes,
  campaignRequest,
  SENDER_EMAIL,
  subscriber,
} from '#test/support/memory/campaigns.ts';

const S1 = 'seg_aaaaaaaaaaaaaaaaaaaa';

const request = (extra: Partial<CampaignRequest> = {}): CampaignRequest => campaignRequest(S1, extra);

const withSegment = () => {
  const fakes = campaignFakes();
  fakes.segment(S1, [subscriber('a1')]);
  return fakes;
};

const MINUTE = 60_000;

/** The request as a client sends it (JSON body). */
const bodyOf = (r: CampaignRequest) => ({
  name: r.name,
  segments: r.segments,
  from: r.from,
  subject: r.subject,
  ...(r.text ? { text: r.text } : {}),
  ...(r.html ? { html: r.html } : {}),
});

describe('creating a campaign', () => {
  it('refuses segments that all have no members (422 naming them), unless the request allows an empty audience', async () => {
    const fakes = campaignFakes();
    fakes.segment(S1, []);
    const refused = await createCampaign(fakes.manage, CAMPAIGN_STORE, request()).catch((error: unknown) => error);
    expect(refused).toMatchObject({
      kind: 'unprocessable',
      message: expect.stringMatching(new RegExp(`^The audience is empty: segment ${S1} has no members`)),
    });
    expect(fakes.queued).toEqual([]);
    const allowed = await createCampaign(fakes.manage, CAMPAIGN_STORE, request({ allowEmptyAudience: true }));
    expect(allowed.status).toBe('scheduled');
    expect(parseCampaignRequest({ ...bodyOf(request()), allowEmptyAudience: true }).allowEmptyAudience).toBe(true);
    expect(() => parseCampaignRequest({ ...bodyOf(request()), allowEmptyAudience: 'yes' })).toThrow(
      'allowEmptyAudience must be true or false',
    );
  });

  it('queues a campaign without sendAt at once, as scheduled until the worker starts it', async () => {
    const fakes = withSegment();
    const created = await createCampaign(fakes.manage, CAMPAIGN_STORE, request());
    expect(created).toMatchObject({ status: 'scheduled', name: 'Winter sale', segments: [S1], excludeSegments: [] });
    expect(created.id).toMatch(/^cmp_[A-Za-z0-9]{20}$/);
    expect(fakes.queued).toEqual([{ v: 1, type: 'start', storeId: CAMPAIGN_STORE, campaignId: created.id }]);
    expect(fakes.schedules.live.size).toBe(0);
  });

  it("puts scheduled campaigns in the store's bucket of their minute: one schedule per store and minute", async () => {
    const fakes = withSegment();
    const at = fakes.clock.now + 30 * MINUTE + 5_000;
    const first = await createCampaign(fakes.manage, CAMPAIGN_STORE, request({ sendAt: at }));
    const second = await createCampaign(fakes.manage, CAMPAIGN_STORE, request({ name: 'Second', sendAt: at + 10_000 }));
    expect(fakes.queued).toEqual([]);
    expect([...fakes.schedules.live.values()]).toEqual([
      expect.objectContaining({
        at: dueMinute(at),
        payload: { v: 1, kind: 'tick', storeId: CAMPAIGN_STORE, minute: dueMinute(at) },
      }),
    ]);
    // The tick releases both into the campaigns queue.
    const starts: string[] = [];
    await releaseTick(
      {
        buckets: fakes.buckets,
        flowQueue: { resume: async () => undefined },
        campaignStarts: { start: async (timer) => void starts.push(timer.campaignId) },
      },
      { v: 1, kind: 'tick', storeId: CAMPAIGN_STORE, minute: dueMinute(at) },
    );
    expect(starts.sort()).toEqual([first.id, second.id].sort());
  });

  it('refuses a segment the store does not have, naming the field', async () => {
    const fakes = withSegment();
    await expect(
      createCampaign(
        fakes.manage,
        CAMPAIGN_STORE,
        request({ segments: [S1], excludeSegments: ['seg_zzzzzzzzzzzzzzzzzzzz'] }),
      ),
    ).rejects.toThrow('excludeSegments[0] seg_zzzzzzzzzzzzzzzzzzzz is not a segment of this store');
    expect(fakes.campaigns.size).toBe(0);
  });

  it("refuses a from address outside the store's sending domains", async () => {
    const fakes = withSegment();
    await expect(
      createCampaign(fakes.manage, CAMPAIGN_STORE, request({ from: { email: 'news@other.example', name: 'X' } })),
    ).rejects.toThrow(/from.email domain other.example is not a sending domain of this store/);
  });

  it(`refuses a time more than ${CAMPAIGN_LIMITS.scheduleDays} days ahead`, async () => {
    const fakes = withSegment();
    await expect(
      createCampaign(fakes.manage, CAMPAIGN_STORE, request({ sendAt: fakes.clock.now + 91 * 86_400_000 })),
    ).rejects.toThrow(`sendAt must be at most ${CAMPAIGN_LIMITS.scheduleDays} days ahead`);
  });

  it(`refuses a campaign beyond ${CAMPAIGN_LIMITS.activePerStore} scheduled or sending ones with a 409`, async () => {
    const fakes = withSegment();
    for (let i = 0; i < CAMPAIGN_LIMITS.activePerStore; i++) {
      await createCampaign(fakes.manage, CAMPAIGN_STORE, request({ name: `C${i}` }));
    }
    await expect(createCampaign(fakes.manage, CAMPAIGN_STORE, request({ name: 'One too many' }))).rejects.toMatchObject(
      {
        kind: 'conflict',
      },
    );
    // A cancelled one makes room.
    const [any] = fakes.campaigns.values();
    await cancelCampaign(fakes.manage, CAMPAIGN_STORE, any?.id);
    await expect(createCampaign(fakes.manage, CAMPAIGN_STORE, request({ name: 'Now it fits' }))).resolves.toBeDefined();
  });
});

describe('templates', () => {
  it('renders the Liquid once into the SES template, each contact field as its placeholder', async () => {
    const fakes = withSegment();
    const created = await createCampaign(
      fakes.manage,
      CAMPAIGN_STORE,
      request({ html: '<p>{{ contact.first_name }} &amp; {{ campaign.name }}</p>' }),
    );
    expect(fakes.campaigns.get(created.id)?.template).toEqual({
      subject: 'Hello {{sf_first_name}}',
      html: '<p>{{sf_first_name}} &amp; Winter sale</p>',
      text: 'Hi {{sf_first_name}}, unsubscribe: {{sf_unsubscribe_url}}',
    });
    // The answer shows the source as saved.
    expect(created).toMatchObject({ subject: 'Hello {{ contact.first_name }}' });
  });

  it('refuses a template that does not parse, or that filters or tests a contact field', async () => {
    const fakes = withSegment();
    await expect(createCampaign(fakes.manage, CAMPAIGN_STORE, request({ html: '{% if x %}open' }))).rejects.toThrow(
      /^body\.html: /,
    );
    await expect(
      createCampaign(fakes.manage, CAMPAIGN_STORE, request({ subject: 'Hi {{ contact.first_name | upcase }}' })),
    ).rejects.toThrow(/subject: a campaign template outputs contact fields as they are/);
    await expect(
      createCampaign(fakes.manage, CAMPAIGN_STORE, request({ text: '{{ contact.email | slice: 0, 3 }}' })),
    ).rejects.toThrow(/text: /);
    // `default` shows only for an empty value, which SES would fill in empty: "Hi !".
    await expect(
      createCampaign(
        fakes.manage,
        CAMPAIGN_STORE,
        request({ subject: "Hi {{ contact.first_name | default: 'there' }}!" }),
      ),
    ).rejects.toThrow(/subject: a campaign template outputs contact fields as they are .*not even \| default/);
    await expect(
      createCampaign(fakes.manage, CAMPAIGN_STORE, request({ html: '{% if contact.last_name == "" %}Hi{% endif %}' })),
    ).rejects.toThrow(/html: /);
    expect(fakes.campaigns.size).toBe(0);
  });
});

describe('the request body', () => {
  const body = { name: 'Sale', segments: [S1], from: { email: SENDER_EMAIL, name: 'Shop' }, subject: 'Hi', text: 'Hi' };

  it('names the field and the rule', () => {
    expect(() => parseCampaignRequest({ ...body, segments: [] })).toThrow('segments must name at least 1 segment');
    expect(() => parseCampaignRequest({ ...body, segments: ['nope'] })).toThrow(/segments\[0\] must be a segment id/);
    expect(() => parseCampaignRequest({ ...body, sendAt: 'tomorrow' })).toThrow(/sendAt must be an ISO 8601 time/);
    expect(() => parseCampaignRequest({ ...body, colour: 'red' })).toThrow('body has an unknown field "colour"');
    expect(() => parseCampaignRequest({ ...body, text: undefined })).toThrow('html or text is required');
    expect(() => parseCampaignRequest({ ...body, excludeSegments: [S1] })).toThrow(`excludeSegments names ${S1}`);
  });

  it('reads sendAt as epoch milliseconds', () => {
    expect(parseCampaignRequest({ ...body, sendAt: '2026-12-01T09:00:00Z' }).sendAt).toBe(Date.UTC(2026, 11, 1, 9));
  });
});

describe('cancel and stats', () => {
  it('cancels once (409 after), answers 404 for a campaign of no one, and reads stats from the campaign counters', async () => {
    const fakes = withSegment();
    const created = await createCampaign(
      fakes.manage,
      CAMPAIGN_STORE,
      request({ sendAt: fakes.clock.now + 10 * MINUTE }),
    );
    await expect(cancelCampaign(fakes.manage, CAMPAIGN_STORE, created.id)).resolves.toMatchObject({
      status: 'cancelled',
      sentBeforeCancel: 0,
    });
    await expect(cancelCampaign(fakes.manage, CAMPAIGN_STORE, created.id)).rejects.toMatchObject({ kind: 'conflict' });
    await expect(cancelCampaign(fakes.manage, 'st_other', created.id)).rejects.toMatchObject({ kind: 'not_found' });
    await expect(cancelCampaign(fakes.manage, CAMPAIGN_STORE, 'cmp_nope')).rejects.toMatchObject({ kind: 'not_found' });

    const live = await createCampaign(fakes.manage, CAMPAIGN_STORE, request({ name: 'Live' }));
    await handleCampaignMessage(fakes.worker, fakes.queued.pop() as NonNullable<(typeof fakes.queued)[number]>);
    await fakes.worker.campaigns.addOutcome(CAMPAIGN_STORE, live.id, { page: 0, chunk: 0 }, { sent: 1, failed: 0 });
    const attribution = memoryAttribution().store;
    const touch = { kind: 'bulk', batchId: 'sb_x', campaignId: live.id, at: fakes.clock.now } as const;
    for (const counter of ['delivered', 'opened', 'clicked'] as const) {
      for (const c of countsFor(touch, { [counter]: 1 })) {
        await attribution.add(
          CAMPAIGN_STORE,
          [c.scope],
          new Date(fakes.clock.now).toISOString().slice(0, 10),
          c.deltas,
        );
      }
    }
    const read = await getCampaign(
      { campaigns: fakes.worker.campaigns, attribution, clock: { now: () => fakes.clock.now } },
      CAMPAIGN_STORE,
      live.id,
    );
    expect(read).toMatchObject({
      status: 'sent',
      progress: { recipients: 1, queued: 1, sent: 1 },
      stats: { sent: 1, delivered: 1, opened: 1, clicked: 1, bounced: 0, orders: 0, revenue: {} },
    });
    await expect(cancelCampaign(fakes.manage, CAMPAIGN_STORE, live.id)).rejects.toThrow(
      'The campaign is sent already; only a scheduled or sending campaign can be cancelled',
    );
  });
});
