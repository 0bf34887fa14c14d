/**
 * A bulk email batch (spec "Bulk email request") and its recipients, as stored and as answered. The request's rules are
 * in `bulk-request.ts`, the use cases in `accept-bulk.ts` and `read-batch.ts`.
 */
import { type Address, BULK_CHUNK_SIZE } from './model.ts';
import { normalizeDomain } from './sender.ts';

export const SENDING_LIMITS = {
  /** Spec "Limits": at most 2,000 recipients per send. */
  recipients: 2000,
  /**
   * Sends per second per store. Each call may carry 2,000 recipients, so this is far above any real campaign pace, and
   * it keeps a runaway script from filling the queue.
   */
  sendsPerSecond: 5,
  /** Status reads per second per store. */
  readsPerSecond: 10,
  /** The request body: 2,000 recipients with their substitution data (API Gateway and Lambda allow 6 MB). */
  maxBodyBytes: 5 * 1024 * 1024,
  /** subject, preheader, html, text, headers and common substitution data together (the batch is one item). */
  maxContentBytes: 300 * 1024,
  /** One recipient's substitution data (its name and address aside). */
  maxRecipientDataBytes: 16 * 1024,
  /** Extra headers per request. */
  maxHeaders: 10,
} as const;

export type RecipientStatus = 'queued' | 'sent' | 'failed' | 'rejected';
export const REJECTION_REASONS = ['invalid_address', 'duplicate', 'suppressed', 'header_line_break'] as const;
export type RejectionReason = (typeof REJECTION_REASONS)[number];

export interface SendRecipient {
  /** Position in the request's `recipients`. */
  readonly index: number;
  /** The address as accepted (domain lower-cased and in ASCII), or as given when it was rejected as invalid. */
  readonly email: string;
  readonly name?: string;
  readonly substitutionData?: Readonly<Record<string, unknown>>;
  readonly status: RecipientStatus;
  readonly reason?: RejectionReason;
  /** SES message id once sent (`rcpt_to` + this batch id match the email events). */
  readonly messageId?: string;
  /** Why SES did not take it (final for `failed`, the last transient error for `queued`). */
  readonly error?: string;
  /** Send attempts that failed transiently. */
  readonly attempts?: number;
  /** Epoch milliseconds. */
  readonly sentAt?: number;
}

/** A planned chunk: the recipients with `index` in [first, last] still `queued` (at most 50). */
export interface ChunkRange {
  readonly first: number;
  readonly last: number;
}

export interface SendBatch {
  readonly storeId: string;
  /** The spec's batch id, `transmission_id` in email events. Of SES's tag alphabet. */
  readonly id: string;
  /** Epoch milliseconds. */
  readonly createdAt: number;
  readonly from: Address;
  readonly replyTo: string;
  readonly subject: string;
  readonly preheader?: string;
  readonly html?: string;
  readonly text?: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly substitutionData: Readonly<Record<string, unknown>>;
  readonly totalAccepted: number;
  readonly totalRejected: number;
  readonly chunks: readonly ChunkRange[];
  /** Progress, added by each chunk once it is done. */
  readonly sent: number;
  readonly failed: number;
  readonly chunksDone: number;
  /** The campaign whose page this batch is (`shared/domain/campaigns/`): its cancel stops the chunks not yet sent. */
  readonly campaignId?: string;
  /** The campaign's page this batch sends (its `walkPage`): with the chunk, what makes a chunk's count once-only. */
  readonly campaignPage?: number;
  /**
   * The number of this batch's first chunk among its page's chunks: a page's recipients held for quiet hours are in
   * batches of their own after the page's batch, and each chunk of the page is counted once by its number. Absent: 0.
   */
  readonly campaignChunkOffset?: number;
}

/** One chunk of a campaign's send batch, as the campaign counts it once: its page (batch) and the chunk in it. */
export interface CampaignChunk {
  readonly page: number;
  readonly chunk: number;
}

export type BatchStatus = 'queued' | 'sending' | 'sent';

export const batchStatus = (batch: SendBatch): BatchStatus =>
  batch.chunksDone >= batch.chunks.length ? 'sent' : batch.chunksDone === 0 ? 'queued' : 'sending';

const LOCAL_PART = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;

/** The address SES can send to (domain lower-cased, in ASCII), or `undefined` when it is not one. */
export const normalizeAddress = (raw: string): string | undefined => {
  const email = raw.trim();
  if (email.length === 0 || email.length > 254) return undefined;
  const at = email.lastIndexOf('@');
  if (at <= 0) return undefined;
  const local = email.slice(0, at);
  const domain = normalizeDomain(email.slice(at + 1));
  if (local.length > 64 || !LOCAL_PART.test(local) || !domain) return undefined;
  return `${local}@${domain}`;
};

export interface Rejection {
  readonly index: number;
  readonly email: string;
  readonly reason: RejectionReason;
}

export interface AcceptedBatch {
  readonly id: string;
  readonly totalAccepted: number;
  readonly totalRejected: number;
  readonly rejections: readonly Rejection[];
}

/** Groups the accepted recipients, in request order, into ranges of at most `BULK_CHUNK_SIZE`. */
export const planChunks = (recipients: readonly SendRecipient[]): ChunkRange[] => {
  const chunks: ChunkRange[] = [];
  let current: number[] = [];
  for (const recipient of recipients) {
    if (recipient.status !== 'queued') continue;
    current.push(recipient.index);
    if (current.length === BULK_CHUNK_SIZE) {
      chunks.push({ first: current[0] as number, last: recipient.index });
      current = [];
    }
  }
  if (current.length > 0) chunks.push({ first: current[0] as number, last: current.at(-1) as number });
  return chunks;
};

const REASON_TEXT: Record<RejectionReason, string> = {
  invalid_address: 'invalid address',
  duplicate: 'repeated address',
  suppressed: 'suppressed (unsubscribed, bounced or complained)',
  header_line_break: 'substitution data putting a line break in a header',
};

/** How many recipients were rejected for each reason (only the reasons that occurred, in order of first occurrence). */
export const rejectionCounts = (accepted: AcceptedBatch): Map<RejectionReason, number> => {
  const counts = new Map<RejectionReason, number>();
  for (const r of accepted.rejections) counts.set(r.reason, (counts.get(r.reason) ?? 0) + 1);
  return counts;
};

/** One line for the response's `message`. */
export const acceptanceMessage = (accepted: AcceptedBatch): string => {
  if (accepted.totalRejected === 0) return `${accepted.totalAccepted} recipients accepted`;
  const reasons = [...rejectionCounts(accepted)].map(([reason, count]) => `${count} ${REASON_TEXT[reason]}`).join(', ');
  return `${accepted.totalAccepted} recipients accepted, ${accepted.totalRejected} rejected (${reasons}); see GET /api/v1/sending/${accepted.id}`;
};
