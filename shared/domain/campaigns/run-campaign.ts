/**
 * The campaign worker's use case (the `campaigns` queue). A due campaign (`start`, from the timer wheel or at once)
 * turns `sending` once; then its walk goes through the members of each of its segments a page at a time:
 *
 * 1. the page's members minus those of the excluded segments (one batch read per excluded segment);
 * 2. each contact read (one batch read): a contact whose email consent is not `subscribed`, whose address is
 *    suppressed, missing or invalid, or whose values would put a line break into a header (`header_line_break`,
 *    `page-batch.ts`) is recorded `skipped` with the reason; the others `queued`;
 * 3. every recipient record is a conditional put (`CampaignRecipients.claim`): a contact already taken by an earlier
 *    page (it is in several segments) is not taken again, so each contact is emailed once (the first segment's pages,
 *    which no earlier page can overlap, are written in batches without the condition);
 * 4. the queued ones are counted against the store's daily cap, then handed to the bulk send path as one send batch
 *    (chunks of 50, one `SendBulkEmail` each, paced by the send worker);
 * 5. the page is recorded on the campaign (counts, the next position) by one conditional update.
 *
 * The campaign is read again before each page, so a cancel stops the walk at the next page; the send worker checks it
 * before each chunk. The walk goes on in a new message when its time runs short. Any message (a `start` that finds the
 * campaign `sending` too: redelivered after the process stopped mid-walk) resumes from the position recorded on the
 * campaign, so a redelivered or duplicate message repeats at most the page in progress, whose claims and batch are the
 * same again (same page, same batch id).
 */
import type { Clock } from '#shared/domain/clock.ts';
import { normalizeAddress } from '#shared/domain/email/bulk-model.ts';
import { sendDay } from '#shared/domain/email/pacing.ts';
import type {
  DailySendCap,
  DailySends,
  RecentSends,
  SendBatchRepository,
  SendQueue,
  Suppressions,
} from '#shared/domain/email/ports.ts';
import { capVerdict, type SmartSendingSettings } from '#shared/domain/email/smart-sending.ts';
import type { SegmentMembers } from '#shared/domain/segments/ports.ts';
import type { Timers } from '#shared/domain/timers/ports.ts';
import { PermanentError } from '#shared/errors.ts';
import { CAMPAIGN_LIMITS, type Campaign, type CampaignRecipient, type SkipReason, type WalkPosition } from './model.ts';
import { campaignSendBatch, headerLineBreak, heldBatchId, pageBatchId } from './page-batch.ts';
import type {
  ActiveCampaigns,
  CampaignMessage,
  CampaignQueue,
  CampaignRecipients,
  CampaignRepository,
  ContactsById,
} from './ports.ts';
import { chargeHeld, heldGroups, holdBatches, quietHoldOf, releaseHeldBatch } from './quiet-hold.ts';

export { pageBatchId } from './page-batch.ts';

export interface CampaignWorkerDeps {
  readonly campaigns: CampaignRepository;
  readonly active: Pick<ActiveCampaigns, 'release'>;
  readonly recipients: Pick<CampaignRecipients, 'claim'>;
  readonly members: Pick<SegmentMembers, 'page' | 'membersAmong'>;
  readonly contacts: ContactsById;
  readonly suppressions: Pick<Suppressions, 'suppressedAmong'>;
  readonly dailySends: DailySends;
  readonly dailySendCap: DailySendCap;
  /** The store's smart-sending settings (docs/smart-sending.md): its frequency cap skips recipients mailed recently. */
  readonly smartSending: (storeId: string) => Promise<SmartSendingSettings | undefined>;
  /** Recent marketing sends per contact: read for the cap, added to for every queued recipient. */
  readonly recentSends: Pick<RecentSends, 'among' | 'record'>;
  readonly batches: Pick<SendBatchRepository, 'create' | 'get'>;
  readonly sendQueue: Pick<SendQueue, 'startBatch'>;
  readonly queue: CampaignQueue;
  /** The timer wheel: send batches held for the recipients' quiet hours wait on it (`quiet-hold.ts`). */
  readonly timers?: Timers;
  readonly clock: Clock;
  /** Members per page (default `CAMPAIGN_LIMITS.pageSize`). */
  readonly pageSize?: number;
}

export type CampaignOutcome =
  | { readonly skipped: string }
  | { readonly released: string }
  | { readonly pages: number; readonly walked: boolean; readonly continued: boolean };

interface PageResult {
  readonly counts: { recipients: number; queued: number; skipped: number; deferred?: number };
  readonly next: WalkPosition | undefined;
}

/** One page of the walk (steps 1–4); answers its counts and where the next page starts. */
const walkPage = async (deps: CampaignWorkerDeps, campaign: Campaign): Promise<PageResult> => {
  const { storeId } = campaign;
  const position = campaign.walk;
  const segmentId = campaign.segments[position.segment];
  if (segmentId === undefined) return { counts: { recipients: 0, queued: 0, skipped: 0 }, next: undefined };
  const found = await deps.members.page(storeId, segmentId, {
    limit: deps.pageSize ?? CAMPAIGN_LIMITS.pageSize,
    ...(position.cursor ? { cursor: position.cursor } : {}),
  });
  const next: WalkPosition | undefined = found.nextCursor
    ? { segment: position.segment, cursor: found.nextCursor }
    : position.segment + 1 < campaign.segments.length
      ? { segment: position.segment + 1 }
      : undefined;

  let members = found.items;
  for (const excluded of campaign.excludeSegments) {
    if (members.length === 0) break;
    const out = await deps.members.membersAmong(
      storeId,
      excluded,
      members.map((m) => m.customerId),
    );
    members = members.filter((m) => !out.has(m.customerId));
  }
  if (members.length === 0) return { counts: { recipients: 0, queued: 0, skipped: 0 }, next };

  const contacts = await deps.contacts.getMany(
    storeId,
    members.map((m) => m.customerId),
  );
  const claimedBy = `p${campaign.walkPage}`;
  const candidates = members.map((member, index) => {
    const contact = contacts.get(member.customerId);
    const raw = contact?.email ?? member.email;
    const email = raw ? normalizeAddress(raw) : undefined;
    const reason: SkipReason | undefined = !contact
      ? 'contact_gone'
      : !raw
        ? 'no_email'
        : !email
          ? 'invalid_address'
          : contact.emailConsent?.state !== 'subscribed'
            ? 'not_subscribed'
            : headerLineBreak(campaign, contact, email)
              ? 'header_line_break'
              : undefined;
    return { member, contact, email, index, reason };
  });
  const suppressed = await deps.suppressions.suppressedAmong(
    storeId,
    candidates.flatMap((c) => (c.reason || !c.email ? [] : [c.email])),
  );
  // The store's frequency cap (flows and campaigns share it) and quiet hours (`quiet-hold.ts`).
  const settings = await deps.smartSending(storeId);
  const cap = settings?.frequencyCap;
  const now = deps.clock.now();
  // Quiet hours are judged as of the time the page became due, so an attempt of the page made later (a retry) holds
  // the same recipients in the same batches.
  const pageAt = Math.min(now, campaign.pageAt ?? campaign.startedAt ?? now);
  const recent = cap
    ? await deps.recentSends.among(
        storeId,
        candidates.flatMap((c) => (c.reason || !c.email ? [] : [c.email])),
        campaign.id,
      )
    : new Map<string, number[]>();
  // Judged at the time the email goes: now, or the end of the recipient's quiet hours.
  const capped = (email: string, at: number) => !capVerdict(cap, recent.get(email.toLowerCase()) ?? [], at).allowed;
  const batchId = pageBatchId(campaign.id, campaign.walkPage);
  const records = candidates.map((c): CampaignRecipient => {
    const email = c.email ?? c.member.email;
    const base = { customerId: c.member.customerId, ...(email ? { email } : {}), claimedBy };
    if (c.reason) return { ...base, status: 'skipped', reason: c.reason };
    if (c.email && suppressed.has(c.email.toLowerCase())) return { ...base, status: 'skipped', reason: 'suppressed' };
    const held = quietHoldOf(settings, c.contact, pageAt);
    if (c.email && capped(c.email, held?.until ?? now)) return { ...base, status: 'skipped', reason: 'frequency_cap' };
    if (!held) return { ...base, status: 'queued', batchId, index: c.index };
    const heldId = heldBatchId(campaign.id, campaign.walkPage, held.until);
    return { ...base, status: 'deferred', reason: 'quiet_hours', held, batchId: heldId, index: c.index };
  });
  // The first segment's pages cannot meet a contact another page took; later segments' pages can (a contact in two).
  const alone = position.segment === 0;
  let claimed = await deps.recipients.claim(storeId, campaign.id, records, { alone });
  let queued = claimed.filter((r) => r.status === 'queued');
  let groups = heldGroups(claimed);

  const dailyCap = queued.length > 0 || groups.length > 0 ? await deps.dailySendCap(storeId) : 0;
  // Once per page: a retry of a page whose first attempt counted its recipients does not count them again.
  const takenBy = `${campaign.id}#${campaign.walkPage}`;
  const refused = new Set<string>();
  if (
    queued.length > 0 &&
    dailyCap > 0 &&
    !(await deps.dailySends.take(storeId, sendDay(now), queued.length, dailyCap, takenBy))
  ) {
    for (const r of queued) refused.add(r.customerId);
  }
  // Held recipients are charged to the day they go (`quiet-hold.ts`).
  for (const id of await chargeHeld(deps, campaign, groups, dailyCap)) refused.add(id);
  if (refused.size > 0) {
    // Over the store's daily cap: these recipients are recorded skipped instead (same page: allowed).
    const rewritten = claimed.map((r): CampaignRecipient => {
      if (!refused.has(r.customerId)) return r;
      const { batchId: _b, index: _i, held: _h, ...rest } = r;
      return { ...rest, status: 'skipped', reason: 'daily_send_cap' };
    });
    claimed = await deps.recipients.claim(storeId, campaign.id, rewritten, { alone });
    queued = claimed.filter((r) => r.status === 'queued');
    groups = heldGroups(claimed);
  }

  // Accepted for sending: counted against the frequency cap, once per recipient and campaign (a repeated page neither
  // records its recipients twice nor finds them capped by its own first attempt).
  if (queued.length > 0) {
    await deps.recentSends.record(
      storeId,
      queued.map((r) => r.email as string),
      { id: campaign.id, at: now },
    );
  }
  const byId = new Map(candidates.map((c) => [c.member.customerId, c.contact]));
  const made = queued.length > 0 ? campaignSendBatch(campaign, batchId, queued, byId, deps.clock.now()) : undefined;
  if (made && !(await deps.batches.get(storeId, batchId))) await deps.batches.create(made.batch, made.recipients);
  // Again on a repeated page: a batch stored by an attempt that stopped before queuing it is queued now (a chunk
  // queued twice is sent once: its lease and its recipients' states decide).
  if (queued.length > 0) await deps.sendQueue.startBatch(storeId, batchId);
  // Held for quiet hours: their batches wait on the timer wheel, their chunks numbered after the page's.
  await holdBatches(deps, campaign, groups, byId, made?.batch.chunks.length ?? 0);
  const deferred = groups.reduce((sum, [, group]) => sum + group.length, 0);
  return {
    counts: {
      recipients: claimed.length,
      queued: queued.length + deferred,
      skipped: claimed.length - queued.length - deferred,
      ...(deferred > 0 ? { deferred } : {}),
    },
    next,
  };
};

export const handleCampaignMessage = async (
  deps: CampaignWorkerDeps,
  message: CampaignMessage,
  hasTime: () => boolean = () => true,
): Promise<CampaignOutcome> => {
  const { storeId, campaignId } = message;
  if (message.type === 'release') return releaseHeldBatch(deps, message);
  const first = await deps.campaigns.get(storeId, campaignId);
  if (!first) throw new PermanentError(`campaign ${campaignId} of store ${storeId} does not exist`);
  // A start turns the campaign `sending` once. A start that finds it `sending` already (redelivered after the process
  // stopped mid-walk, or a tick fired twice) does not start it again but resumes the walk from the position recorded on
  // the campaign, like a walk message: the recipients of recorded pages are not claimed again, and a walk that ended
  // already does nothing more.
  const resumed = message.type === 'walk' || first.state === 'sending';
  if (message.type === 'start' && !resumed) {
    if (first.state !== 'scheduled') return { skipped: `campaign is ${first.state}` };
    // Another attempt may have started it in between: that one walks, and so may this one, from the same position.
    await deps.campaigns.start(storeId, campaignId, deps.clock.now());
  }
  let pages = 0;
  for (;;) {
    const campaign = pages === 0 && resumed ? first : await deps.campaigns.get(storeId, campaignId);
    if (campaign?.state !== 'sending') {
      // Cancelled: its place is given back here too, should the cancel have stopped before doing so.
      if (campaign?.state === 'cancelled') await deps.active.release(storeId, campaignId);
      return { skipped: `campaign is ${campaign?.state ?? 'gone'}` };
    }
    if (campaign.walkedAt !== undefined) {
      // Walked already: a delivery after a stop between the walk's end and its release gives the place back.
      if (pages === 0) await deps.active.release(storeId, campaignId);
      return { pages, walked: true, continued: false };
    }
    if (pages > 0 && !hasTime()) {
      await deps.queue.send({ v: 1, type: 'walk', storeId, campaignId });
      return { pages, walked: false, continued: true };
    }
    const { counts, next } = await walkPage(deps, campaign);
    pages += 1;
    const now = deps.clock.now();
    const recorded = await deps.campaigns.recordPage(storeId, campaignId, campaign.walkPage, counts, next, now);
    if (recorded && next === undefined) {
      // The walk's end gives the campaign's place among the store's active ones back (a cancel before it did so).
      await deps.active.release(storeId, campaignId);
      return { pages, walked: true, continued: false };
    }
  }
};
