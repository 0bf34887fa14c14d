/**
 * Quiet hours in a campaign (docs/smart-sending.md "Campaigns"): a recipient whose local time, when its page became
 * due, is inside the store's quiet hours is not queued now. It is recorded `deferred` (reason `quiet_hours`) in a
 * send batch of its page's recipients held until the same minute — the window's end in their zone, rounded up to the
 * minute — and that batch is put on the timer wheel (one entry per batch; one schedule per store and minute). When the
 * minute's tick fires, the campaigns queue releases the batch to the send path, unless the campaign was cancelled.
 *
 * What is judged when: consent, suppression and the address when the page is walked (as for every campaign
 * recipient); the frequency cap at the release time (the email counts against the cap then, and a contact mailed
 * within the cap's window before the release is skipped `frequency_cap`); the daily cap is charged to the release's UTC
 * day, when the page is walked (a batch over it is skipped `daily_send_cap`). The send worker checks the campaign
 * before each chunk, as for every campaign batch.
 *
 * Idempotent as a page is: the hold is judged as of the time the page became due (`Campaign.pageAt`), so every attempt
 * of a page holds the same recipients until the same minutes; the batch ids derive from the campaign, the page and the
 * minute; a batch found is not written again; the timer has the batch's name (set again, it is the same entry; a
 * minute already past queues the batch at once); the daily cap's charge has the page and minute as its `takenBy`; the
 * recent sends record the campaign's id once per contact.
 */
import type { Clock } from '#shared/domain/clock.ts';
import type { Customer } from '#shared/domain/customers/model.ts';
import { sendDay } from '#shared/domain/email/pacing.ts';
import type { DailySends, RecentSends, SendBatchRepository, SendQueue } from '#shared/domain/email/ports.ts';
import { placeOf, quietVerdict, type SmartSendingSettings } from '#shared/domain/email/smart-sending.ts';
import type { Timers } from '#shared/domain/timers/ports.ts';
import { dueMinute } from '#shared/domain/timers/wheel.ts';
import { PermanentError } from '#shared/errors.ts';
import type { Campaign, CampaignRecipient, QuietHold } from './model.ts';
import { campaignSendBatch } from './page-batch.ts';
import type { CampaignMessage, CampaignRepository } from './ports.ts';

/** The hold of a recipient at `now` (its quiet hours: until when, and why), or `undefined` to send it now. */
export const quietHoldOf = (
  settings: SmartSendingSettings | undefined,
  contact: Customer | undefined,
  now: number,
): QuietHold | undefined => {
  if (!settings?.quietHours) return undefined;
  const verdict = quietVerdict(settings, placeOf(contact), now);
  if (!verdict?.quiet) return undefined;
  return {
    until: dueMinute(verdict.until),
    timeZone: verdict.timeZone,
    zoneFrom: verdict.zoneFrom,
    localTime: verdict.localTime,
  };
};

/** The page's deferred recipients by release minute, earliest first. */
export const heldGroups = (records: readonly CampaignRecipient[]): [number, CampaignRecipient[]][] => {
  const groups = new Map<number, CampaignRecipient[]>();
  for (const r of records) {
    if (r.status !== 'deferred' || !r.held) continue;
    groups.set(r.held.until, [...(groups.get(r.held.until) ?? []), r]);
  }
  return [...groups].sort(([a], [b]) => a - b);
};

/** The timer of a held batch: named by the batch, so a repeated page sets the same one. */
export const heldTimerName = (campaignId: string, batchId: string): string => `campaign-${campaignId}-${batchId}`;

export interface HoldDeps {
  readonly dailySends: DailySends;
  readonly recentSends: Pick<RecentSends, 'record'>;
  readonly batches: Pick<SendBatchRepository, 'create' | 'get'>;
  /** A held batch whose minute is past already (a page walked again after its window ended) is queued at once. */
  readonly sendQueue: Pick<SendQueue, 'startBatch'>;
  /** The timer wheel; required once a store has quiet hours. */
  readonly timers?: Timers;
  readonly clock: Clock;
}

/**
 * Charges each held group to the daily cap of its release's UTC day, once per page and minute; answers the customer
 * ids of the groups that did not fit.
 */
export const chargeHeld = async (
  deps: Pick<HoldDeps, 'dailySends'>,
  campaign: Campaign,
  groups: readonly [number, CampaignRecipient[]][],
  dailyCap: number,
): Promise<Set<string>> => {
  const refused = new Set<string>();
  if (dailyCap <= 0) return refused;
  for (const [minute, group] of groups) {
    const takenBy = `${campaign.id}#${campaign.walkPage}#${minute}`;
    if (!(await deps.dailySends.take(campaign.storeId, sendDay(minute), group.length, dailyCap, takenBy))) {
      for (const r of group) refused.add(r.customerId);
    }
  }
  return refused;
};

/**
 * Writes each held group's send batch (unless a first attempt of the page did) and puts it on the timer wheel for its
 * minute; the contacts count against the frequency cap at that minute. `chunkOffset`: the page's chunks before them.
 */
export const holdBatches = async (
  deps: HoldDeps,
  campaign: Campaign,
  groups: readonly [number, CampaignRecipient[]][],
  contacts: ReadonlyMap<string, Customer | undefined>,
  chunkOffset: number,
): Promise<void> => {
  if (groups.length === 0) return;
  if (!deps.timers) throw new Error('the campaign worker has no timers: recipients cannot be held for quiet hours');
  let offset = chunkOffset;
  for (const [minute, group] of groups) {
    const batchId = group[0]?.batchId as string;
    await deps.recentSends.record(
      campaign.storeId,
      group.map((r) => r.email as string),
      { id: campaign.id, at: minute },
    );
    const made = campaignSendBatch(campaign, batchId, group, contacts, deps.clock.now(), offset);
    offset += made.batch.chunks.length;
    if (!(await deps.batches.get(campaign.storeId, batchId))) await deps.batches.create(made.batch, made.recipients);
    if (minute <= deps.clock.now()) {
      await deps.sendQueue.startBatch(campaign.storeId, batchId);
      continue;
    }
    // Again on a repeated page: a batch stored by an attempt that stopped before its timer gets it now.
    await deps.timers.set({
      name: heldTimerName(campaign.id, batchId),
      at: minute,
      payload: { v: 1, kind: 'campaign', storeId: campaign.storeId, campaignId: campaign.id, batchId },
    });
  }
};

/**
 * A held batch's minute came: it goes to the send path if the campaign is still sending (a cancelled one's held
 * recipients are never sent; they answer `cancelled`). Released twice (a tick fired twice), the send path sends each
 * chunk once.
 */
export const releaseHeldBatch = async (
  deps: { readonly campaigns: Pick<CampaignRepository, 'get'>; readonly sendQueue: Pick<SendQueue, 'startBatch'> },
  message: Extract<CampaignMessage, { type: 'release' }>,
): Promise<{ readonly released: string } | { readonly skipped: string }> => {
  const campaign = await deps.campaigns.get(message.storeId, message.campaignId);
  if (!campaign) throw new PermanentError(`campaign ${message.campaignId} of store ${message.storeId} does not exist`);
  if (campaign.state !== 'sending') return { skipped: `campaign is ${campaign.state}` };
  await deps.sendQueue.startBatch(message.storeId, message.batchId);
  return { released: message.batchId };
};
