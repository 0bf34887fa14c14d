/**
 * Ports of the campaigns area: campaigns, their recipients, the campaigns queue, and what the walk reads of contacts
 * and of the send path. Nothing here imports an AWS SDK.
 */
import type { Customer } from '#shared/domain/customers/model.ts';
import type { CampaignChunk, SendRecipient } from '#shared/domain/email/bulk-model.ts';
import type { Campaign, CampaignProgress, CampaignRecipient, WalkPosition } from './model.ts';

export interface Page<T> {
  readonly items: T[];
  /** Opaque; absent on the last page. */
  readonly nextCursor?: string;
}

export interface CampaignRepository {
  /** Writes a new campaign (its id is new). */
  create(campaign: Campaign): Promise<void>;
  get(storeId: string, campaignId: string): Promise<Campaign | undefined>;
  /** Removes a campaign whose start could not be queued (nothing of it exists elsewhere yet). */
  delete(storeId: string, campaignId: string): Promise<void>;
  /** The store's campaigns, newest first. */
  list(storeId: string, page: { limit: number; cursor?: string }): Promise<Page<Campaign>>;
  /** `scheduled` → `sending` at `at`; false when it was not `scheduled` (started already, or cancelled). */
  start(storeId: string, campaignId: string, at: number): Promise<boolean>;
  /**
   * `scheduled` or `sending` → `cancelled` at `at`, answering the campaign as it was just before; `undefined` when it
   * was neither (cancelled already; a missing campaign too).
   */
  cancel(storeId: string, campaignId: string, at: number): Promise<Campaign | undefined>;
  /**
   * Records page `page` of the walk at `at` (`pageAt`): adds its counts and moves the walk to `next` (page `page + 1`
   * from there), or sets `walkedAt` when it was the last (`next` absent), only if the walk is still at `page` and the campaign is
   * `sending`; false otherwise (a page recorded by another attempt, or a cancelled campaign), and then nothing is
   * counted.
   */
  recordPage(
    storeId: string,
    campaignId: string,
    page: number,
    counts: Pick<CampaignProgress, 'recipients' | 'queued' | 'skipped' | 'deferred'>,
    next: WalkPosition | undefined,
    at: number,
  ): Promise<boolean>;
  /**
   * Adds a chunk's outcome (the send worker). Once per `chunk`: the same chunk told again adds nothing. Without one
   * (a batch written before pages were recorded) every call adds.
   */
  addOutcome(
    storeId: string,
    campaignId: string,
    chunk: CampaignChunk | undefined,
    counts: Pick<CampaignProgress, 'sent' | 'failed'>,
  ): Promise<void>;
}

/**
 * Which campaigns of a store are scheduled or walking (`CAMPAIGN_LIMITS.activePerStore`), by id, so that taking and
 * giving back a place can be repeated: a worker stopped between a walk's end and its release gives the place back on
 * the message's next delivery instead of keeping it for good.
 */
export interface ActiveCampaigns {
  /** Counts the campaign among the store's active ones unless the store has `cap` others already; false then. */
  take(storeId: string, campaignId: string, cap: number): Promise<boolean>;
  /** The campaign no longer counts (cancelled before its walk ended, or walked); a repeat does nothing. */
  release(storeId: string, campaignId: string): Promise<void>;
}

/**
 * A campaign's recipients, one item per contact, in customer id order. `claim` is a conditional put per recipient:
 * a contact already taken by another page (it is in several segments) is not taken again, while a retry of the same
 * page (`claimedBy`) takes its own recipients again.
 */
export interface CampaignRecipients {
  /**
   * Writes each recipient that no other page took; answers those written. `alone`: no other page can hold these
   * contacts (a page of the campaign's first segment: a segment's pages are disjoint), so they are written without a
   * condition, in batches.
   */
  claim(
    storeId: string,
    campaignId: string,
    recipients: readonly CampaignRecipient[],
    options?: { readonly alone?: boolean },
  ): Promise<CampaignRecipient[]>;
  page(storeId: string, campaignId: string, page: { limit: number; cursor?: string }): Promise<Page<CampaignRecipient>>;
}

/** The send path's record of each queued recipient (`batchId`, `index`), read to answer its outcome. */
export interface SendOutcomes {
  of(
    storeId: string,
    refs: readonly { readonly batchId: string; readonly index: number }[],
  ): Promise<Map<string, SendRecipient>>;
}

/** The key of a recipient in `SendOutcomes.of`'s answer. */
export const outcomeKey = (batchId: string, index: number): string => `${batchId}#${index}`;

/** Contacts by customer id (one batch read per page of the walk): consent and address at send time. */
export interface ContactsById {
  getMany(storeId: string, customerIds: readonly string[]): Promise<Map<string, Customer>>;
}

export type CampaignMessage =
  /** Due (from the timer wheel, or at once): the walk begins if the campaign is still `scheduled`. */
  | { readonly v: 1; readonly type: 'start'; readonly storeId: string; readonly campaignId: string }
  /** The walk goes on from where the campaign records it is (a continuation: the previous run ran out of time). */
  | { readonly v: 1; readonly type: 'walk'; readonly storeId: string; readonly campaignId: string }
  /** The quiet hours of a held send batch's recipients ended (the timer wheel): the batch goes to the send path. */
  | {
      readonly v: 1;
      readonly type: 'release';
      readonly storeId: string;
      readonly campaignId: string;
      readonly batchId: string;
    };

export interface CampaignQueue {
  send(message: CampaignMessage): Promise<void>;
}
