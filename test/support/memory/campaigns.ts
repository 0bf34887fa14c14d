/** In-memory doubles of the campaigns area's ports (`shared/domain/campaigns/ports.ts`), for unit tests. */

import { simRecentSends } from '#shared/domain/backtest/sim-engine.ts';
import type { CampaignRequest } from '#shared/domain/campaigns/campaign-request.ts';
import type { ManageCampaignDeps } from '#shared/domain/campaigns/manage-campaigns.ts';
import type { Campaign, CampaignRecipient } from '#shared/domain/campaigns/model.ts';
import {
  type CampaignMessage,
  type CampaignRecipients,
  outcomeKey,
  type SendOutcomes,
} from '#shared/domain/campaigns/ports.ts';
import type { CampaignWorkerDeps } from '#shared/domain/campaigns/run-campaign.ts';
import type { Customer } from '#shared/domain/customers/model.ts';
import type { SendBatch, SendRecipient } from '#shared/domain/email/bulk-model.ts';
import type { Sender } from '#shared/domain/email/sender.ts';
import type { SmartSendingSettings } from '#shared/domain/email/smart-sending.ts';
import type { SegmentMember } from '#shared/domain/segments/model.ts';
import { wheelTimers } from '#shared/domain/timers/wheel.ts';
import { customerOf } from './flow-engine.ts';
import { MemorySchedules, MemoryTimerBuckets } from './timers.ts';

export const CAMPAIGN_STORE = 'st_campaigns_unit';
export const SENDER_EMAIL = 'news@shop.example';

/** A subscribed contact of the campaigns' store with an address of its own (`<originId>@example.com`). */
export const subscriber = (
  originId: string,
  extra: { readonly [K in keyof Customer]?: Customer[K] | undefined } = {},
): Customer => {
  const customer: Record<string, unknown> = {
    ...customerOf(originId, {
      storeId: CAMPAIGN_STORE,
      email: `${originId}@example.com`,
      emailConsent: { state: 'subscribed' },
    }),
  };
  // `undefined` in `extra` takes the field away (a contact without an address, without consent).
  for (const [name, value] of Object.entries(extra)) {
    if (value === undefined) delete customer[name];
    else customer[name] = value;
  }
  return customer as unknown as Customer;
};

/** A campaign of the fakes' sender to `segmentId`, due now, with an HTML and a text part. */
export const campaignRequest = (segmentId: string, extra: Partial<CampaignRequest> = {}): CampaignRequest => ({
  name: 'Winter sale',
  segments: [segmentId],
  excludeSegments: [],
  from: { email: SENDER_EMAIL, name: 'Shop' },
  subject: 'Hello {{ contact.first_name }}',
  html: '<p>Hi {{ contact.first_name }}</p>',
  text: 'Hi {{ contact.first_name }}, unsubscribe: {{ unsubscribe_url }}',
  ...extra,
});

const copy = <T>(value: T): T => structuredClone(value);

/**
 * Every port of the campaigns area over maps, with what the use cases did: send batches created and queued,
 * campaign messages queued. `clock.now` is the time the use cases see; `members` holds each segment's members;
 * `dailyCap` is the store's cap (0: none).
 */
export const campaignFakes = () => {
  const campaigns = new Map<string, Campaign>();
  const recipients = new Map<string, Map<string, CampaignRecipient>>();
  const members = new Map<string, SegmentMember[]>();
  const contacts = new Map<string, Customer>();
  const suppressed = new Set<string>();
  const batches = new Map<string, { batch: SendBatch; recipients: SendRecipient[] }>();
  const startedBatches: string[] = [];
  const queued: CampaignMessage[] = [];
  /** Each claim: whether it was written without the condition (a page of the first segment), and its size. */
  const claims: { alone: boolean; count: number }[] = [];
  const clock = { now: Date.UTC(2026, 0, 1) };
  const limits: {
    dailyCap: number;
    sentToday: number;
    /** The store's active campaigns, by id. */
    active: Set<string>;
    smartSending?: SmartSendingSettings;
  } = {
    dailyCap: 0,
    sentToday: 0,
    active: new Set(),
  };
  const recentSends = simRecentSends();
  const schedules = new MemorySchedules();
  const buckets = new MemoryTimerBuckets();

  const recipientsOf = (campaignId: string) => {
    const found = recipients.get(campaignId) ?? new Map<string, CampaignRecipient>();
    recipients.set(campaignId, found);
    return found;
  };
  const paged = <T>(items: T[], limit: number, cursor?: string) => {
    const start = cursor ? Number(cursor) : 0;
    const end = start + limit;
    return { items: items.slice(start, end), ...(end < items.length ? { nextCursor: String(end) } : {}) };
  };
  const countedChunks = new Set<string>();
  const takenToday = new Set<string>();
  const change = (id: string, update: (c: Campaign) => Campaign) => {
    const current = campaigns.get(id);
    if (current) campaigns.set(id, update(current));
  };

  const recipientPort: CampaignRecipients = {
    claim: async (_s, campaignId, list, options) => {
      claims.push({ alone: options?.alone === true, count: list.length });
      const taken = recipientsOf(campaignId);
      return list.filter((r) => {
        const before = taken.get(r.customerId);
        if (before && before.claimedBy !== r.claimedBy) return false;
        taken.set(r.customerId, copy(r));
        return true;
      });
    },
    page: async (_s, campaignId, { limit, cursor }) =>
      paged(
        [...recipientsOf(campaignId).values()].sort((a, b) => a.customerId.localeCompare(b.customerId)),
        limit,
        cursor,
      ),
  };

  const worker: CampaignWorkerDeps = {
    campaigns: {
      create: async (c) => void campaigns.set(c.id, copy(c)),
      get: async (storeId, id) => (campaigns.get(id)?.storeId === storeId ? copy(campaigns.get(id)) : undefined),
      delete: async (_s, id) => void campaigns.delete(id),
      list: async (_s, { limit, cursor }) =>
        paged(
          [...campaigns.values()].sort((a, b) => b.createdAt - a.createdAt),
          limit,
          cursor,
        ),
      start: async (_s, id, at) => {
        const c = campaigns.get(id);
        if (c?.state !== 'scheduled') return false;
        campaigns.set(id, { ...c, state: 'sending', startedAt: at });
        return true;
      },
      cancel: async (_s, id, at) => {
        const c = campaigns.get(id);
        if (!c || (c.state !== 'scheduled' && c.state !== 'sending')) return undefined;
        campaigns.set(id, { ...c, state: 'cancelled', cancelledAt: at });
        return copy(c);
      },
      recordPage: async (_s, id, page, counts, next, at) => {
        const c = campaigns.get(id);
        if (c?.walkPage !== page || c.state !== 'sending') return false;
        campaigns.set(id, {
          ...c,
          walkPage: page + 1,
          walk: next ?? { segment: -1 },
          pageAt: at,
          ...(next ? {} : { walkedAt: at }),
          progress: {
            ...c.progress,
            recipients: c.progress.recipients + counts.recipients,
            queued: c.progress.queued + counts.queued,
            skipped: c.progress.skipped + counts.skipped,
            ...(counts.deferred ? { deferred: (c.progress.deferred ?? 0) + counts.deferred } : {}),
          },
        });
        return true;
      },
      addOutcome: async (_s, id, chunk, counts) => {
        // Once per chunk, as the table's conditional update counts.
        const key = chunk && `${id}#${chunk.page}#${chunk.chunk}`;
        if (key && countedChunks.has(key)) return;
        if (key) countedChunks.add(key);
        await change(id, (c) => ({
          ...c,
          progress: { ...c.progress, sent: c.progress.sent + counts.sent, failed: c.progress.failed + counts.failed },
        }));
      },
    },
    active: {
      release: async (_s, campaignId) => {
        limits.active.delete(campaignId);
      },
    },
    recipients: recipientPort,
    members: {
      page: async (_s, segmentId, { limit, cursor }) => paged(members.get(segmentId) ?? [], limit, cursor),
      membersAmong: async (_s, segmentId, ids) =>
        new Set(ids.filter((id) => (members.get(segmentId) ?? []).some((m) => m.customerId === id))),
    },
    contacts: {
      getMany: async (_s, ids) =>
        new Map(ids.flatMap((id) => (contacts.has(id) ? [[id, copy(contacts.get(id) as Customer)] as const] : []))),
    },
    suppressions: {
      suppressedAmong: async (_s, emails) =>
        new Set(emails.map((e) => e.toLowerCase()).filter((e) => suppressed.has(e))),
    },
    dailySends: {
      take: async (_s, _day, count, cap, takenBy) => {
        if (takenBy && takenToday.has(takenBy)) return true;
        if (limits.sentToday + count > cap) return false;
        limits.sentToday += count;
        if (takenBy) takenToday.add(takenBy);
        return true;
      },
    },
    dailySendCap: async () => limits.dailyCap,
    smartSending: async () => limits.smartSending,
    recentSends,
    batches: {
      create: async (batch, list) => void batches.set(batch.id, { batch: copy(batch), recipients: copy([...list]) }),
      get: async (_s, id) => copy(batches.get(id)?.batch),
    },
    sendQueue: { startBatch: async (_s, id) => void startedBatches.push(id) },
    queue: { send: async (message) => void queued.push(message) },
    timers: wheelTimers({ buckets, schedules, clock: { now: () => clock.now }, waitingRunsCap: 10 }),
    clock: { now: () => clock.now },
    pageSize: 3,
  };

  const sender: Sender = {
    storeId: CAMPAIGN_STORE,
    domain: 'shop.example',
    status: 'verified',
    dkimTokens: [],
    createdAt: 0,
    checkedAt: 0,
    verifiedAt: 0,
  };
  const manage: ManageCampaignDeps = {
    // Every segment of the fake is built: its live count is its member list's length.
    segmentStates: {
      getMany: async (_s, ids) =>
        new Map(
          ids
            .filter((id) => members.has(id))
            .map((id) => [
              id,
              {
                members: members.get(id)?.length ?? 0,
                build: { revision: 1, status: 'ready' as const, scanned: 0, startedAt: 0 },
              },
            ]),
        ),
    },
    campaigns: worker.campaigns,
    active: {
      take: async (_s, campaignId, cap) => {
        if (limits.active.size >= cap && !limits.active.has(campaignId)) return false;
        limits.active.add(campaignId);
        return true;
      },
      release: worker.active.release,
    },
    segments: {
      get: async (_s, id) =>
        members.has(id)
          ? {
              storeId: CAMPAIGN_STORE,
              id,
              name: id,
              conditions: { match: 'all', conditions: [] },
              createdAt: 0,
              updatedAt: 0,
              revision: 1,
            }
          : undefined,
    },
    senders: {
      senders: {
        get: async (_s, domain) => (domain === sender.domain ? sender : undefined),
        claim: async () => ({ claimed: true }),
        markVerified: async () => undefined,
        heldNearby: async () => undefined,
        list: async () => [sender],
        put: async () => undefined,
        release: async () => undefined,
      },
      identities: {
        create: async () => ({ status: 'verified', dkimTokens: [] }),
        get: async () => undefined,
        delete: async () => undefined,
      },
      clock: { now: () => clock.now },
    },
    queue: worker.queue,
    timers: wheelTimers({ buckets, schedules, clock: { now: () => clock.now }, waitingRunsCap: 10 }),
    clock: { now: () => clock.now },
  };

  /** The send path's recipients of the created batches, by `outcomeKey`. */
  const outcomes: SendOutcomes = {
    of: async (_s, refs) =>
      new Map(
        refs.flatMap((ref) => {
          const found = batches.get(ref.batchId)?.recipients.find((r) => r.index === ref.index);
          return found ? [[outcomeKey(ref.batchId, ref.index), copy(found)] as const] : [];
        }),
      ),
  };

  return {
    worker,
    manage,
    outcomes,
    /** What the recipients list reads. */
    read: { campaigns: worker.campaigns, recipients: recipientPort, outcomes },
    campaigns,
    recipients,
    members,
    contacts,
    suppressed,
    batches,
    startedBatches,
    queued,
    claims,
    clock,
    limits,
    /** Recent marketing send times per address (the frequency cap). */
    recentSends: recentSends.times,
    schedules,
    buckets,
    /** Adds the contacts to a segment (in customer id order, as the members page answers them). */
    segment(segmentId: string, customers: readonly Customer[]) {
      for (const c of customers) contacts.set(c.originId, c);
      const list = [
        ...(members.get(segmentId) ?? []),
        ...customers.map((c) => ({ customerId: c.originId, ...(c.email ? { email: c.email } : {}), enteredAt: 0 })),
      ].sort((a, b) => a.customerId.localeCompare(b.customerId));
      members.set(segmentId, list);
    },
  };
};
