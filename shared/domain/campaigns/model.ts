/**
 * Campaigns: a one-off email to the members of one or more segments, minus the members of
 * other segments, now or at a scheduled time. A campaign is walked page by page by the campaign worker
 * (`run-campaign.ts`), which hands each page's recipients to the bulk send path (`shared/domain/email/`) as one send
 * batch: consent, suppression, unsubscribe headers, pacing, SES events and attribution are the bulk path's.
 */

/** What the store asked for; `scheduled` until its time, `sending` once the worker started, `cancelled` for good. */
export type CampaignState = 'scheduled' | 'sending' | 'cancelled';
/** What the API answers: `sent` once the walk is over and every queued recipient has its outcome. */
export type CampaignStatus = 'scheduled' | 'sending' | 'sent' | 'cancelled';

/** The email's parts: Liquid source as saved, or the SES template rendered from it (`content.ts`). */
export interface CampaignContent {
  readonly subject: string;
  readonly preheader?: string;
  readonly html?: string;
  readonly text?: string;
}

/** Counts kept on the campaign item (atomic `ADD`s). */
export interface CampaignProgress {
  /** Contacts the walk took (each once, whatever the number of segments naming it). */
  readonly recipients: number;
  /** Handed to the send path (now, or held for the recipient's quiet hours: `deferred`). */
  readonly queued: number;
  /**
   * Of `queued`, held for the recipient's quiet hours and sent when their window opens (docs/smart-sending.md).
   * Absent until a page holds one.
   */
  readonly deferred?: number;
  /** Not handed on: no consent, suppressed, no address, over the daily cap (per-recipient reason in the list). */
  readonly skipped: number;
  /** Accepted by SES. */
  readonly sent: number;
  /** Refused by SES. */
  readonly failed: number;
}

/** Where the walk's next page starts: the index in `segments`, and the members cursor within it. */
export interface WalkPosition {
  readonly segment: number;
  readonly cursor?: string;
}

export const NO_PROGRESS: CampaignProgress = { recipients: 0, queued: 0, skipped: 0, sent: 0, failed: 0 };

export interface Campaign {
  readonly storeId: string;
  readonly id: string;
  readonly name: string;
  readonly segments: readonly string[];
  readonly excludeSegments: readonly string[];
  readonly from: { readonly email: string; readonly name: string };
  readonly replyTo?: string;
  /** As saved (Liquid). */
  readonly content: CampaignContent;
  /**
   * The SES template the send path fills per recipient (`content.ts`); its send batches' HTML part names each contact
   * field's HTML-escaped copy instead (`htmlPart`).
   */
  readonly template: CampaignContent;
  /** When it is due, epoch ms. */
  readonly sendAt: number;
  readonly createdAt: number;
  readonly state: CampaignState;
  readonly startedAt?: number;
  /** Set when the walk handed its last page on. */
  readonly walkedAt?: number;
  /**
   * When the previous page was recorded (absent before the first: `startedAt`): the time the page now due is judged
   * at for quiet hours, the same on every attempt of that page.
   */
  readonly pageAt?: number;
  readonly cancelledAt?: number;
  /** The next page the walk is to record (pages count from 0), and where it starts. */
  readonly walkPage: number;
  readonly walk: WalkPosition;
  readonly progress: CampaignProgress;
}

export const campaignStatus = (campaign: Campaign): CampaignStatus => {
  if (campaign.state === 'cancelled' || campaign.state === 'scheduled') return campaign.state;
  const { queued, sent, failed } = campaign.progress;
  return campaign.walkedAt !== undefined && sent + failed >= queued ? 'sent' : 'sending';
};

/** Why a contact of the segments was not handed to the send path. */
export const SKIP_REASONS = [
  'not_subscribed',
  'suppressed',
  'no_email',
  'invalid_address',
  'daily_send_cap',
  'frequency_cap',
  'contact_gone',
  /** The contact's values would put CR or LF into a header (subject, sender, `To:` name): the bulk path's rule. */
  'header_line_break',
] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

/**
 * Why a held recipient waits (docs/smart-sending.md): it was inside the store's quiet hours in its zone, and goes
 * when the window ends.
 */
export interface QuietHold {
  /** When it is released to the send path, epoch ms (the window's end rounded up to the minute). */
  readonly until: number;
  readonly timeZone: string;
  readonly zoneFrom: 'contact' | 'country' | 'store';
  /** The recipient's wall clock when its page was walked, `HH:MM`. */
  readonly localTime: string;
}

/** One contact of a campaign, written once (conditional put) by the page that took it. */
export interface CampaignRecipient {
  readonly customerId: string;
  readonly email?: string;
  /** `deferred`: handed to a send batch that waits for the end of the recipient's quiet hours. */
  readonly status: 'queued' | 'skipped' | 'deferred';
  readonly reason?: SkipReason | 'quiet_hours';
  /** `deferred` ones: until when, and why. */
  readonly held?: QuietHold;
  /** Where the send path keeps its outcome (queued and deferred ones). */
  readonly batchId?: string;
  readonly index?: number;
  /** The page that took it: a retry of the same page takes it again, another page never. */
  readonly claimedBy: string;
}

/** The recipient as answered: the send path's outcome joined in. */
export interface RecipientOutcome {
  readonly customerId: string;
  readonly email?: string;
  readonly status: 'queued' | 'deferred' | 'sent' | 'failed' | 'skipped';
  readonly reason?: SkipReason | 'cancelled' | 'quiet_hours';
  /** `deferred`: when its quiet hours end and it goes (epoch seconds). */
  readonly until?: number;
  readonly timeZone?: string;
  readonly zoneFrom?: 'contact' | 'country' | 'store';
  readonly localTime?: string;
  readonly error?: string;
  readonly messageId?: string;
  /** Epoch seconds. */
  readonly sentAt?: number;
}

export const CAMPAIGN_LIMITS = {
  /** Segments a campaign sends to, and segments it excludes. */
  segments: 10,
  excludeSegments: 10,
  /** How far ahead a campaign may be scheduled. */
  scheduleDays: 90,
  /** Campaigns scheduled or sending at once per store. */
  activePerStore: 20,
  /** Members read per page of the walk: one send batch of at most this many recipients (20 chunks of 50). */
  pageSize: 1000,
  /** Recipients per page of the recipients list. */
  recipientsPage: { default: 100, max: 1000 },
  /** Campaigns per page of the list. */
  listPage: { default: 50, max: 100 },
  managementPerSecond: 10,
} as const;

export const CAMPAIGN_NOT_FOUND = 'Campaign not found';
