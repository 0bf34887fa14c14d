/**
 * Ports of the email area: the mail engine, suppressions, sent messages, bulk sending and sending domains. Nothing here
 * imports an AWS SDK.
 */

import type { SendBatch, SendRecipient } from './bulk-model.ts';
import type {
  BulkEntryResult,
  ContactEmail,
  EmailOutcome,
  OutboundBulk,
  OutboundEmail,
  SentMessage,
  Suppression,
} from './model.ts';
import type { SlotOwner } from './pacing.ts';
import type { IdentityState, Sender } from './sender.ts';

/** The store's sending domains; a domain belongs to one store at a time. */
/** The outcome of claiming a domain for a store. */
export type DomainClaim =
  | {
      readonly claimed: true /** The store whose unverified claim had lapsed and was taken over. */;
      readonly lapsedFrom?: string;
    }
  | { readonly claimed: false };

export interface SenderRepository {
  /**
   * Records the domain for the store; `{claimed: false}` when another store holds it, unless that store's claim is
   * still unverified and older than `lapsedBefore` (epoch ms): then this store takes it over. Idempotent for the same
   * store. Also marks each parent domain as having this subdomain registered (see `heldNearby`).
   */
  claim(sender: Sender, lapsedBefore: number): Promise<DomainClaim>;
  /** Marks the store's domain verified on its owner item (a verified claim never lapses). */
  markVerified(storeId: string, domain: string): Promise<void>;
  /**
   * A parent or subdomain of `domain` that another store holds, if any: the owners of `parents`, then the subdomains
   * registered under `domain`.
   */
  heldNearby(storeId: string, domain: string, parents: readonly string[]): Promise<string | undefined>;
  get(storeId: string, domain: string): Promise<Sender | undefined>;
  list(storeId: string): Promise<Sender[]>;
  /** Writes a sender the store already holds (status refresh). */
  put(sender: Sender): Promise<void>;
  /** Frees the domain (only if this store holds it) and removes the store's record. */
  release(storeId: string, domain: string): Promise<void>;
}

/** Sending identities in the mail engine (SES domain identities with Easy DKIM). */
export interface SendingIdentities {
  /** Creates the identity; one that already exists is read instead. */
  create(domain: string): Promise<IdentityState>;
  /** `undefined` when the identity does not exist. */
  get(domain: string): Promise<IdentityState | undefined>;
  /** Deletes the identity; a missing one is fine. */
  delete(domain: string): Promise<void>;
}

/** The outcome of trying to take a chunk's send lease. */
export type ChunkClaim =
  | {
      readonly claimed: true;
      readonly lease: string;
      /** The previous lease ran out instead of being given back (a crash, or a write failing after SES took them). */
      readonly retaken?: boolean;
    }
  | { readonly claimed: false; readonly done: boolean };

/** A store's bulk batches, newest first (batches created before this index existed are not listed). */
export interface SendBatchList {
  listForStore(
    storeId: string,
    page: { limit: number; cursor?: string },
  ): Promise<{ readonly items: SendBatch[]; readonly nextCursor?: string }>;
}

export interface SendBatchRepository {
  /**
   * Stores the recipients, then the batch (a batch that can be read has all its recipients). A batch whose id is
   * stored already is kept as it is (its chunks' progress is not reset).
   */
  create(batch: SendBatch, recipients: readonly SendRecipient[]): Promise<void>;
  get(storeId: string, batchId: string): Promise<SendBatch | undefined>;
  /** Recipients whose `index` is within [first, last], in index order. */
  recipientsBetween(storeId: string, batchId: string, first: number, last: number): Promise<SendRecipient[]>;
  /** The recipients rejected at the request and those SES did not take, in index order. */
  problems(storeId: string, batchId: string): Promise<SendRecipient[]>;
  /**
   * Writes recipients (their new status) back: recipients of one chunk, by the holder of its lease (an adapter may
   * rewrite the chunk's recipients whole, so two writers of one chunk at once could undo each other's states).
   */
  saveRecipients(storeId: string, batchId: string, recipients: readonly SendRecipient[]): Promise<void>;
  /**
   * Takes the chunk's lease for `leaseMs` unless the chunk is done, or another attempt holds a lease that has not
   * expired (a duplicate delivery of the same message).
   */
  claimChunk(storeId: string, batchId: string, chunk: number, leaseMs: number): Promise<ChunkClaim>;
  /** Gives the lease back (the chunk will be attempted again). */
  releaseChunk(storeId: string, batchId: string, chunk: number, lease: string): Promise<void>;
  /** Marks the chunk done and adds its counts to the batch, atomically; `false` if the lease was lost meanwhile. */
  completeChunk(
    storeId: string,
    batchId: string,
    chunk: number,
    lease: string,
    counts: { readonly sent: number; readonly failed: number },
  ): Promise<boolean>;
}

export interface SendQueue {
  /** Queues the batch: the worker fans it out into its chunks. */
  startBatch(storeId: string, batchId: string): Promise<void>;
  /** Queues chunks of a batch, after `delaySeconds` (0 to 900). */
  enqueueChunks(storeId: string, batchId: string, chunks: readonly number[], delaySeconds?: number): Promise<void>;
}

/** Keeps the account's send rate: messages are sent only once their send slots are reserved. */
export interface SendPacer {
  /**
   * Reserves `count` message slots for `owner` across every instance, within the account rate `perSecond` and the
   * limits of `slotLimits` (the owner's class and store share): answers when the last slot's second starts (epoch
   * milliseconds; wait until then, then send), or, when the slots are not free within the next seconds, how long to
   * put the work off (nothing stays reserved then).
   */
  reserve(
    count: number,
    perSecond: number,
    owner: SlotOwner,
  ): Promise<{ readonly at: number } | { readonly retryInSeconds: number }>;
}

/** Each store's marketing sends of a UTC day, counted against the operator's daily cap. */
export interface DailySends {
  /**
   * Counts `count` sends of `day` (`yyyymmdd`) for the store if they fit under `cap`; false (nothing counted) if not.
   * With `takenBy` (a campaign's page), once: the same `takenBy` again answers true and counts nothing more.
   */
  take(storeId: string, day: string, count: number, cap: number, takenBy?: string): Promise<boolean>;
}

/**
 * A store's daily cap on marketing email: its own when the operator set one (`store daily-send-cap`), the deployment's
 * (`storeDailySendCap`) otherwise; 0 for none.
 */
export type DailySendCap = (storeId: string) => Promise<number>;

/** The mail engine (SESv2). Transient failures throw (the queue retries); permanent ones throw `PermanentError`. */
export interface Mailer {
  /** One rendered message (flows); answers SES's message id. */
  send(message: OutboundEmail): Promise<{ messageId: string }>;
  /** Up to `BULK_CHUNK_SIZE` entries sharing one content; per-entry results in entry order. */
  sendBulk(batch: OutboundBulk): Promise<BulkEntryResult[]>;
}

/** Addresses a store must not mail any more (unsubscribed, hard-bounced, complained). */
export interface Suppressions {
  /** The addresses (lower-cased) among `emails` that the store has suppressed. */
  suppressedAmong(storeId: string, emails: readonly string[]): Promise<Set<string>>;
  /** Records the suppression (idempotent; the first reason is kept). */
  suppress(entry: Suppression): Promise<void>;
}

/**
 * Messages handed to SES, by message id (SES events are matched back through these), and per recipient address with
 * what SES reported of each (`ContactEmails`).
 */
export interface SentMessages {
  /** Records each message, and its email on the recipient's record. */
  record(messages: readonly SentMessage[]): Promise<void>;
  get(messageId: string): Promise<SentMessage | undefined>;
  /** True the first time it is called for the message (the spec's `initial_open` is the first open only). */
  firstOpen(messageId: string): Promise<boolean>;
}

/** The emails sent to an address, each with what SES reported of it (the console's contact timeline). */
/** What noting a delivery found (`ContactEmails.noteDelivered`). */
export type DeliveryNote = 'first' | 'counted' | 'unknown';

export interface ContactEmails {
  /**
   * Notes an SES event on the message's email record (`at`: the event's time, epoch ms; `detail`: a bounce's or
   * failure's reason, a click's link). A message without one (sent before the record existed, or expired) is left be.
   */
  note(
    message: Pick<SentMessage, 'storeId' | 'rcptTo' | 'sentAt' | 'messageId'>,
    outcome: EmailOutcome,
    at: number,
    detail?: string,
  ): Promise<void>;
  /**
   * Notes the message's first delivery and, in the same write, that its `delivered` count is this handling's to add
   * (one write instead of the note and a `COUNTED` once-key). `first`: noted now, count it; `counted`: an
   * earlier handling noted and counted it; `unknown`: no record of the email, or a delivery noted by a handling that
   * counted with its once-key (before this write existed): the caller counts once by the once-key.
   */
  noteDelivered(
    message: Pick<SentMessage, 'storeId' | 'rcptTo' | 'sentAt' | 'messageId'>,
    at: number,
  ): Promise<DeliveryNote>;
  /** The latest `limit` emails to the address, newest first. */
  latest(storeId: string, email: string, limit: number): Promise<ContactEmail[]>;
}

// ── OAuth sign-in: accounts, single-use links, back-office sessions, lockout ──

/**
 * When each contact was last sent marketing email (flows and campaigns), for the frequency cap
 * (docs/smart-sending.md): one item per store and address with its send times of the last 7 days (at most
 * `RECENT_SENDS_KEPT`), written when an email is accepted for sending: a flow email takes its place before the SES call
 * (one conditional write, so two workers mailing one contact at once cannot both pass the cap), a campaign page
 * records its queued recipients in one batch.
 */
export interface RecentSends {
  /** The address's recent marketing send times (epoch ms), oldest first; `[]` when none. */
  get(storeId: string, email: string): Promise<number[]>;
  /**
   * Several addresses at once (lower-cased keys; addresses without sends are absent), leaving out the sends of
   * `exceptId` (a campaign's own, when its page is repeated).
   */
  among(storeId: string, emails: readonly string[], exceptId?: string): Promise<Map<string, number[]>>;
  /** Adds the send `id` at `at` to each address that does not have it yet (older times are dropped). */
  record(storeId: string, emails: readonly string[], send: { readonly id: string; readonly at: number }): Promise<void>;
  /**
   * Adds the send `id` at `at` to the address if `allows` holds for its other recent send times (or `id` is there
   * already: a retried email); answers whether it did and the times it judged. Conditional on the item's revision,
   * re-read on a race.
   */
  take(
    storeId: string,
    email: string,
    send: { readonly id: string; readonly at: number },
    allows: (times: readonly number[]) => boolean,
  ): Promise<{ taken: boolean; times: number[] }>;
  /** Removes the send `id` (its email was not sent after all). */
  release(storeId: string, email: string, id: string): Promise<void>;
}
