/**
 * The campaigns API (docs/campaigns.md): create (now or at `sendAt`), list, read with progress and stats, cancel, and
 * the per-recipient outcome. The walk itself is `run-campaign.ts`.
 */
import { campaignScope, dayOf, summarize } from '#shared/domain/attribution/model.ts';
import type { AttributionStore } from '#shared/domain/attribution/ports.ts';
import { countsReader } from '#shared/domain/attribution/read-counts.ts';
import type { Clock } from '#shared/domain/clock.ts';
import { requireVerifiedSender, type SenderDeps } from '#shared/domain/email/senders.ts';
import { randomBase62 } from '#shared/domain/ids.ts';
import type { SegmentRepository, SegmentStates } from '#shared/domain/segments/ports.ts';
import type { Timers } from '#shared/domain/timers/ports.ts';
import { AppError, conflict, notFound, unavailable, validationError } from '#shared/errors.ts';
import type { CampaignRequest } from './campaign-request.ts';
import { compileTemplate } from './content.ts';
import {
  CAMPAIGN_LIMITS,
  CAMPAIGN_NOT_FOUND,
  type Campaign,
  campaignStatus,
  NO_PROGRESS,
  type RecipientOutcome,
} from './model.ts';
import {
  type ActiveCampaigns,
  type CampaignQueue,
  type CampaignRecipients,
  type CampaignRepository,
  outcomeKey,
  type SendOutcomes,
} from './ports.ts';

export interface ManageCampaignDeps {
  readonly campaigns: CampaignRepository;
  readonly active: ActiveCampaigns;
  readonly segments: Pick<SegmentRepository, 'get'>;
  /** The segments' live member counts and builds: a campaign to segments that are all empty is refused. */
  readonly segmentStates: Pick<SegmentStates, 'getMany'>;
  readonly senders: SenderDeps;
  readonly queue: CampaignQueue;
  /** The timer wheel: a due campaign is in its store's bucket for the minute, one schedule per store and minute. */
  readonly timers: Timers;
  readonly clock: Clock;
}

const DAY_MS = 86_400_000;
const seconds = (ms: number | undefined) => (ms === undefined ? undefined : Math.floor(ms / 1000));

/** The campaign as answered (times in epoch seconds, like the segments API). */
export const campaignRecord = (campaign: Campaign) => ({
  id: campaign.id,
  name: campaign.name,
  status: campaignStatus(campaign),
  segments: campaign.segments,
  excludeSegments: campaign.excludeSegments,
  from: campaign.from,
  ...(campaign.replyTo ? { replyTo: campaign.replyTo } : {}),
  subject: campaign.content.subject,
  ...(campaign.content.preheader !== undefined ? { preheader: campaign.content.preheader } : {}),
  ...(campaign.content.html !== undefined ? { html: campaign.content.html } : {}),
  ...(campaign.content.text !== undefined ? { text: campaign.content.text } : {}),
  sendAt: seconds(campaign.sendAt) as number,
  createdAt: seconds(campaign.createdAt) as number,
  ...(campaign.startedAt !== undefined ? { startedAt: seconds(campaign.startedAt) } : {}),
  ...(campaign.cancelledAt !== undefined ? { cancelledAt: seconds(campaign.cancelledAt) } : {}),
  progress: { ...campaign.progress, deferred: campaign.progress.deferred ?? 0 },
});
export type CampaignRecord = ReturnType<typeof campaignRecord>;

const possibleId = (id: string | undefined): id is string => typeof id === 'string' && /^cmp_[A-Za-z0-9]{20}$/.test(id);

const ownCampaign = async (
  deps: { readonly campaigns: Pick<CampaignRepository, 'get'> },
  storeId: string,
  id: string | undefined,
) => {
  const campaign = possibleId(id) ? await deps.campaigns.get(storeId, id) : undefined;
  if (!campaign) throw notFound(CAMPAIGN_NOT_FOUND);
  return campaign;
};

/** `POST /api/v1/campaigns`. */
/**
 * A campaign to segments that all have no members, their builds done, would be sent to nobody and end `sent` at once:
 * almost always a mistake (the wrong segment, or one defined too narrowly). Refused unless the request says it may be
 * empty (`allowEmptyAudience`, for a segment expected to fill before `sendAt`). A segment still building may yet have
 * members: not refused. The count is the one at creation; a scheduled campaign is sent to its members at `sendAt`.
 */
const requireAudience = async (
  deps: Pick<ManageCampaignDeps, 'segmentStates'>,
  storeId: string,
  ids: readonly string[],
) => {
  const states = await deps.segmentStates.getMany(storeId, ids);
  const empty = ids.every((id) => {
    const state = states.get(id);
    return state !== undefined && state.build.status === 'ready' && state.members === 0;
  });
  if (empty) {
    throw new AppError(
      'unprocessable',
      `The audience is empty: ${ids.length === 1 ? `segment ${ids[0]} has` : `segments ${ids.join(', ')} have`} no ` +
        'members, so the campaign would be sent to nobody. Check the segments, or send allowEmptyAudience: true to ' +
        'create it anyway (it goes to the members they have when it starts)',
    );
  }
};

export const createCampaign = async (
  deps: ManageCampaignDeps,
  storeId: string,
  request: CampaignRequest,
): Promise<CampaignRecord> => {
  const now = deps.clock.now();
  const sendAt = Math.max(now, request.sendAt ?? now);
  if (sendAt > now + CAMPAIGN_LIMITS.scheduleDays * DAY_MS) {
    throw validationError(`sendAt must be at most ${CAMPAIGN_LIMITS.scheduleDays} days ahead`);
  }
  for (const [field, ids] of [
    ['segments', request.segments],
    ['excludeSegments', request.excludeSegments],
  ] as const) {
    for (const [index, id] of ids.entries()) {
      if (!(await deps.segments.get(storeId, id))) {
        throw validationError(`${field}[${index}] ${id} is not a segment of this store`);
      }
    }
  }
  if (!request.allowEmptyAudience) await requireAudience(deps, storeId, request.segments);
  await requireVerifiedSender(deps.senders, storeId, request.from.email);
  const content = {
    subject: request.subject,
    ...(request.preheader !== undefined ? { preheader: request.preheader } : {}),
    ...(request.html !== undefined ? { html: request.html } : {}),
    ...(request.text !== undefined ? { text: request.text } : {}),
  };
  const template = await compileTemplate(content, { storeId, name: request.name });
  const campaignId = `cmp_${randomBase62(20)}`;
  if (!(await deps.active.take(storeId, campaignId, CAMPAIGN_LIMITS.activePerStore))) {
    throw conflict(
      `The store already has ${CAMPAIGN_LIMITS.activePerStore} campaigns scheduled or sending, the most allowed; wait for one to finish or cancel one`,
    );
  }
  const campaign: Campaign = {
    storeId,
    id: campaignId,
    name: request.name,
    segments: request.segments,
    excludeSegments: request.excludeSegments,
    from: request.from,
    ...(request.replyTo ? { replyTo: request.replyTo } : {}),
    content,
    template,
    sendAt,
    createdAt: now,
    state: 'scheduled',
    walkPage: 0,
    walk: { segment: 0 },
    progress: NO_PROGRESS,
  };
  try {
    await deps.campaigns.create(campaign);
    if (sendAt <= now) {
      await deps.queue.send({ v: 1, type: 'start', storeId, campaignId: campaign.id });
    } else {
      await deps.timers.set({
        name: `campaign-${campaign.id}`,
        at: sendAt,
        payload: { v: 1, kind: 'campaign', storeId, campaignId: campaign.id },
      });
    }
  } catch (error) {
    // Nothing was started: the campaign is removed again, and its place among the store's active ones given back.
    await deps.campaigns.delete(storeId, campaign.id).catch(() => undefined);
    await deps.active.release(storeId, campaign.id).catch(() => undefined);
    throw unavailable('The campaign could not be scheduled; nothing was saved, retry', error);
  }
  return campaignRecord(campaign);
};

/** `GET /api/v1/campaigns`: newest first. */
export const listCampaigns = async (
  deps: Pick<ManageCampaignDeps, 'campaigns'>,
  storeId: string,
  page: { limit: number; cursor?: string | undefined },
) => {
  const found = await deps.campaigns.list(storeId, {
    limit: page.limit,
    ...(page.cursor ? { cursor: page.cursor } : {}),
  });
  return {
    list: found.items.map(campaignRecord),
    ...(found.nextCursor ? { nextCursor: found.nextCursor } : {}),
  };
};

export interface CampaignStatsDeps {
  readonly campaigns: CampaignRepository;
  readonly attribution: Pick<AttributionStore, 'days' | 'periods' | 'monthsKept'>;
  readonly clock: Clock;
}

/**
 * A campaign's stats: what it sent, and the SES events and influenced orders counted for it since it was due (at most
 * the last 365 days): one counters read.
 */
export const campaignStats = async (
  deps: Pick<CampaignStatsDeps, 'attribution' | 'clock'>,
  storeId: string,
  campaign: { readonly id: string; readonly sendAt: number; readonly progress: { readonly sent: number } },
) => {
  const now = deps.clock.now();
  const range = { from: dayOf(Math.max(Math.min(campaign.sendAt, now), now - 365 * DAY_MS)), to: dayOf(now) };
  const counts = await countsReader(deps.attribution, storeId, range.to)(campaignScope(campaign.id), range);
  const totals = summarize(range.from, range.to, counts.totals);
  return {
    sent: campaign.progress.sent,
    delivered: totals.delivered,
    opened: totals.opened,
    clicked: totals.clicked,
    bounced: totals.bounced,
    unsubscribed: totals.unsubscribed,
    orders: totals.influenced.orders,
    revenue: totals.influenced.revenue,
  };
};
export type CampaignStats = Awaited<ReturnType<typeof campaignStats>>;

/** `GET /api/v1/campaigns/{id}`: the campaign with its stats (SES events and influenced orders since it was due). */
export const getCampaign = async (deps: CampaignStatsDeps, storeId: string, id: string | undefined) => {
  const campaign = await ownCampaign(deps, storeId, id);
  return { ...campaignRecord(campaign), stats: await campaignStats(deps, storeId, campaign) };
};

/** `POST /api/v1/campaigns/{id}/cancel`: before its time nothing is sent; during, the chunks not yet sent are not. */
export const cancelCampaign = async (
  deps: Pick<ManageCampaignDeps, 'campaigns' | 'active' | 'clock'>,
  storeId: string,
  id: string | undefined,
) => {
  const campaign = await ownCampaign(deps, storeId, id);
  const status = campaignStatus(campaign);
  if (status === 'sent' || status === 'cancelled') {
    throw conflict(`The campaign is ${status} already; only a scheduled or sending campaign can be cancelled`);
  }
  const before = await deps.campaigns.cancel(storeId, campaign.id, deps.clock.now());
  if (!before) throw conflict('The campaign is cancelled already');
  // The walk that ends gives its place back; one cancelled before its walk ended gives it back here.
  if (before.walkedAt === undefined) await deps.active.release(storeId, campaign.id);
  const after = (await deps.campaigns.get(storeId, campaign.id)) ?? before;
  return { ...campaignRecord(after), sentBeforeCancel: after.progress.sent };
};

export interface CampaignRecipientsDeps {
  readonly campaigns: Pick<CampaignRepository, 'get'>;
  readonly recipients: CampaignRecipients;
  readonly outcomes: SendOutcomes;
}

/** `GET /api/v1/campaigns/{id}/recipients`: each contact's outcome, in customer id order. */
export const listCampaignRecipients = async (
  deps: CampaignRecipientsDeps,
  storeId: string,
  id: string | undefined,
  page: { limit: number; cursor?: string | undefined },
): Promise<{ list: RecipientOutcome[]; nextCursor?: string }> => {
  const campaign = await ownCampaign(deps, storeId, id);
  const found = await deps.recipients.page(storeId, campaign.id, {
    limit: page.limit,
    ...(page.cursor ? { cursor: page.cursor } : {}),
  });
  const queued = found.items.flatMap((r) =>
    r.status !== 'skipped' && r.batchId !== undefined && r.index !== undefined
      ? [{ batchId: r.batchId, index: r.index }]
      : [],
  );
  const outcomes = queued.length > 0 ? await deps.outcomes.of(storeId, queued) : new Map();
  const list = found.items.map((r): RecipientOutcome => {
    const base = { customerId: r.customerId, ...(r.email ? { email: r.email } : {}) };
    if (r.status === 'skipped') return { ...base, status: 'skipped', ...(r.reason ? { reason: r.reason } : {}) };
    const sent =
      r.batchId !== undefined && r.index !== undefined ? outcomes.get(outcomeKey(r.batchId, r.index)) : undefined;
    if (sent?.status === 'sent') {
      return {
        ...base,
        status: 'sent',
        ...(sent.messageId ? { messageId: sent.messageId } : {}),
        ...(sent.sentAt !== undefined ? { sentAt: Math.floor(sent.sentAt / 1000) } : {}),
      };
    }
    if (sent?.status === 'failed') return { ...base, status: 'failed', ...(sent.error ? { error: sent.error } : {}) };
    if (campaign.state === 'cancelled') return { ...base, status: 'skipped', reason: 'cancelled' };
    if (r.status === 'deferred' && r.held) {
      const { until, timeZone, zoneFrom, localTime } = r.held;
      return {
        ...base,
        status: 'deferred',
        reason: 'quiet_hours',
        until: seconds(until) as number,
        timeZone,
        zoneFrom,
        localTime,
      };
    }
    return { ...base, status: 'queued' };
  });
  return { list, ...(found.nextCursor ? { nextCursor: found.nextCursor } : {}) };
};
