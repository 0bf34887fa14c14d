/**
 * Bulk email (spec "Bulk email request"): one request of 1 to 2,000 recipients sharing one content, with per-recipient
 * substitution data. The request is checked as a whole (a malformed field, a header that could inject another header,
 * an unverified from domain refuse it), then recipient by recipient: an invalid, repeated or suppressed address is
 * rejected and counted, the rest accepted. The batch is stored with every recipient, planned in chunks of at most 50
 * accepted recipients (one `SendBulkEmail` each), and queued; the answer does not wait for the mail engine.
 */
import * as v from 'valibot';
import type { Clock } from '#shared/domain/clock.ts';
import { randomBase62 } from '#shared/domain/ids.ts';
import { describeIssues } from '#shared/domain/validation.ts';
import { unavailable, validationError } from '#shared/errors.ts';
import { type Address, BULK_CHUNK_SIZE } from './model.ts';
import type { SendBatchRepository, SendQueue, Suppressions } from './ports.ts';
import { normalizeDomain, requireVerifiedSender, type SenderDeps } from './senders.ts';

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
export type RejectionReason = 'invalid_address' | 'duplicate' | 'suppressed';

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
}

export type BatchStatus = 'queued' | 'sending' | 'sent';

export const batchStatus = (batch: SendBatch): BatchStatus =>
  batch.chunksDone >= batch.chunks.length ? 'sent' : batch.chunksDone === 0 ? 'queued' : 'sending';

const LINE_BREAK = /[\r\n]/;
const noLineBreak = v.check((value: string) => !LINE_BREAK.test(value), 'must not contain line breaks (CR or LF)');

const JsonObject = v.custom<Record<string, unknown>>(
  (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
  'must be an object',
);

const RecipientSchema = v.object({
  address: v.object({
    email: v.string('must be a string'),
    name: v.optional(
      v.pipe(v.string('must be a string'), noLineBreak, v.maxLength(256, 'must be at most 256 characters')),
    ),
    substitutionData: v.optional(JsonObject),
  }),
});

/** The request as a whole (exported for the API description); `parseBulkRequest` adds the checks across fields. */
export const RequestSchema = v.object({
  subject: v.pipe(
    v.string('must be a string'),
    // Before trimming: a line break anywhere, even at an end, is refused rather than silently dropped.
    noLineBreak,
    v.trim(),
    v.minLength(1, 'must not be empty'),
    v.maxLength(998, 'must be at most 998 characters'),
  ),
  preheader: v.optional(v.pipe(v.string('must be a string'), v.maxLength(500, 'must be at most 500 characters'))),
  html: v.optional(v.string('must be a string')),
  text: v.optional(v.string('must be a string')),
  from: v.object({
    name: v.pipe(v.string('must be a string'), v.maxLength(256, 'must be at most 256 characters'), noLineBreak),
    email: v.pipe(v.string('must be a string'), noLineBreak),
  }),
  recipients: v.pipe(
    v.array(RecipientSchema, 'must be an array'),
    v.minLength(1, 'must have at least 1 recipient'),
    v.maxLength(SENDING_LIMITS.recipients, `must have at most ${SENDING_LIMITS.recipients} recipients`),
  ),
  replyTo: v.optional(v.pipe(v.string('must be a string'), noLineBreak)),
  headers: v.optional(v.record(v.string(), v.string('must be a string'))),
  substitutionData: v.optional(JsonObject),
});

export type BulkRequest = v.InferOutput<typeof RequestSchema>;

/**
 * Headers the service or SES writes, or that change who receives or how the message is read: refused as extra
 * headers (case-insensitive). `List-Unsubscribe` is set per recipient by the service.
 */
const RESERVED_HEADERS = new Set(
  [
    'from',
    'to',
    'cc',
    'bcc',
    'subject',
    'reply-to',
    'sender',
    'return-path',
    'date',
    'message-id',
    'mime-version',
    'content-type',
    'content-transfer-encoding',
    'content-disposition',
    'content-id',
    'list-unsubscribe',
    'list-unsubscribe-post',
    'dkim-signature',
    'received',
    'feedback-id',
    'x-ses-configuration-set',
  ].map((name) => name.toLowerCase()),
);
const HEADER_NAME = /^[A-Za-z0-9][A-Za-z0-9-]{0,75}$/;
/** SES: header values are printable ASCII (and the tab), at most 995 characters. */
const HEADER_VALUE = /^[\t\x20-\x7e]{0,995}$/;

const checkHeaders = (headers: Readonly<Record<string, string>>) => {
  const names = Object.keys(headers);
  if (names.length > SENDING_LIMITS.maxHeaders) {
    throw validationError(`headers must have at most ${SENDING_LIMITS.maxHeaders} entries`);
  }
  for (const [name, value] of Object.entries(headers)) {
    if (LINE_BREAK.test(name) || LINE_BREAK.test(value)) {
      throw validationError(`headers.${JSON.stringify(name)} must not contain line breaks (CR or LF)`);
    }
    if (!HEADER_NAME.test(name)) {
      throw validationError(
        `headers.${JSON.stringify(name)} is not an allowed header name (letters, digits and '-', at most 76 characters)`,
      );
    }
    if (RESERVED_HEADERS.has(name.toLowerCase()) || name.toLowerCase().startsWith('x-ses-')) {
      throw validationError(`headers.${name} is set by the service and cannot be given`);
    }
    if (!HEADER_VALUE.test(value)) {
      throw validationError(`headers.${name} must be printable ASCII of at most 995 characters`);
    }
  }
};

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

const byteLength = (value: unknown) => Buffer.byteLength(JSON.stringify(value ?? null));

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

export interface AcceptBulkDeps {
  readonly senders: SenderDeps;
  readonly suppressions: Suppressions;
  readonly batches: SendBatchRepository;
  readonly queue: SendQueue;
  readonly clock: Clock;
}

/** Checks the request as a whole; throws a validation error naming the field and the rule. */
export const parseBulkRequest = (body: unknown): BulkRequest => {
  const result = v.safeParse(RequestSchema, body);
  if (!result.success) throw validationError(describeIssues(result.issues));
  const request = result.output;
  if (!request.html && !request.text) throw validationError('html or text is required (at least one, not empty)');
  if (request.replyTo && !normalizeAddress(request.replyTo)) throw validationError('replyTo must be an email address');
  if (!normalizeAddress(request.from.email)) throw validationError('from.email must be an email address');
  checkHeaders(request.headers ?? {});
  const content = {
    subject: request.subject,
    preheader: request.preheader,
    html: request.html,
    text: request.text,
    headers: request.headers,
    substitutionData: request.substitutionData,
  };
  if (byteLength(content) > SENDING_LIMITS.maxContentBytes) {
    throw validationError(
      `subject, preheader, html, text, headers and substitutionData together must be at most ${SENDING_LIMITS.maxContentBytes} bytes`,
    );
  }
  request.recipients.forEach((recipient, index) => {
    if (byteLength(recipient.address.substitutionData) > SENDING_LIMITS.maxRecipientDataBytes) {
      throw validationError(
        `recipients[${index}].address.substitutionData must be at most ${SENDING_LIMITS.maxRecipientDataBytes} bytes`,
      );
    }
  });
  return request;
};

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

/** `POST {sending_url}/api/v1/sending`. */
export const acceptBulk = async (deps: AcceptBulkDeps, storeId: string, body: unknown): Promise<AcceptedBatch> => {
  const request = parseBulkRequest(body);
  const fromEmail = normalizeAddress(request.from.email) as string;
  await requireVerifiedSender(deps.senders, storeId, fromEmail);

  const seen = new Set<string>();
  const candidates = request.recipients.map((recipient, index): SendRecipient => {
    const { email: raw, name, substitutionData } = recipient.address;
    const email = normalizeAddress(raw);
    if (!email) return { index, email: raw.trim().slice(0, 320), status: 'rejected', reason: 'invalid_address' };
    const key = email.toLowerCase();
    if (seen.has(key)) return { index, email, status: 'rejected', reason: 'duplicate' };
    seen.add(key);
    return {
      index,
      email,
      ...(name?.trim() ? { name: name.trim() } : {}),
      ...(substitutionData ? { substitutionData } : {}),
      status: 'queued',
    };
  });
  const suppressed = await deps.suppressions.suppressedAmong(
    storeId,
    candidates.filter((r) => r.status === 'queued').map((r) => r.email),
  );
  const recipients = candidates.map(
    (r): SendRecipient =>
      r.status === 'queued' && suppressed.has(r.email.toLowerCase())
        ? { index: r.index, email: r.email, status: 'rejected', reason: 'suppressed' }
        : r,
  );
  const rejections = recipients.flatMap((r) =>
    r.status === 'rejected' && r.reason ? [{ index: r.index, email: r.email, reason: r.reason }] : [],
  );
  const chunks = planChunks(recipients);
  const batch: SendBatch = {
    storeId,
    id: `sb_${randomBase62(20)}`,
    createdAt: deps.clock.now(),
    from: { email: fromEmail, name: request.from.name.trim() },
    replyTo: request.replyTo ? (normalizeAddress(request.replyTo) as string) : fromEmail,
    subject: request.subject,
    ...(request.preheader ? { preheader: request.preheader } : {}),
    ...(request.html ? { html: request.html } : {}),
    ...(request.text ? { text: request.text } : {}),
    headers: request.headers ?? {},
    substitutionData: request.substitutionData ?? {},
    totalAccepted: recipients.length - rejections.length,
    totalRejected: rejections.length,
    chunks,
    sent: 0,
    failed: 0,
    chunksDone: 0,
  };
  await deps.batches.create(batch, recipients);
  if (chunks.length > 0) {
    try {
      await deps.queue.startBatch(storeId, batch.id);
    } catch (error) {
      // The stored batch stays `queued` and is never sent: the caller retries with a new request.
      throw unavailable('The batch could not be queued; nothing was sent, retry', error);
    }
  }
  return { id: batch.id, totalAccepted: batch.totalAccepted, totalRejected: batch.totalRejected, rejections };
};

/** `GET {sending_url}/api/v1/sending/{id}`: the batch, its progress, and every recipient not (yet) sent and why. */
export const readBatch = async (deps: { readonly batches: SendBatchRepository }, storeId: string, batchId: unknown) => {
  const id = typeof batchId === 'string' ? batchId : '';
  // Ids are of one alphabet; anything else is simply not found (never an error that tells ids apart).
  const batch = /^[A-Za-z0-9_-]{1,64}$/.test(id) ? await deps.batches.get(storeId, id) : undefined;
  if (!batch) return undefined;
  const problems = await deps.batches.problems(storeId, id);
  return {
    id: batch.id,
    status: batchStatus(batch),
    createdAt: Math.floor(batch.createdAt / 1000),
    from: batch.from,
    subject: batch.subject,
    totalAccepted: batch.totalAccepted,
    totalRejected: batch.totalRejected,
    sent: batch.sent,
    failed: batch.failed,
    pending: Math.max(0, batch.totalAccepted - batch.sent - batch.failed),
    chunks: batch.chunks.length,
    chunksDone: batch.chunksDone,
    rejections: problems
      .filter((r) => r.status === 'rejected')
      .map((r) => ({ index: r.index, email: r.email, reason: r.reason })),
    failures: problems
      .filter((r) => r.status === 'failed')
      .map((r) => ({ index: r.index, email: r.email, error: r.error ?? 'failed' })),
  };
};

export type BatchView = NonNullable<Awaited<ReturnType<typeof readBatch>>>;
