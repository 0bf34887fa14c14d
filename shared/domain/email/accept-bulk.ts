/**
 * Bulk email (spec "Bulk email request"): one request of 1 to 2,000 recipients sharing one content, with per-recipient
 * substitution data. The request is checked as a whole (a malformed field, a header that could inject another header,
 * an unverified from domain refuse it), then recipient by recipient: an invalid, repeated or suppressed address is
 * rejected and counted, the rest accepted. The batch is stored with every recipient, planned in chunks of at most 50
 * accepted recipients (one `SendBulkEmail` each), and queued; the answer does not wait for the mail engine.
 */
import type { Clock } from '#shared/domain/clock.ts';
import { randomBase62 } from '#shared/domain/ids.ts';
import { rateLimited, unavailable } from '#shared/errors.ts';
import { type AcceptedBatch, normalizeAddress, planChunks, type SendBatch, type SendRecipient } from './bulk-model.ts';
import type { BulkRequest } from './bulk-request.ts';
import { lineBreakInHeaders } from './header-values.ts';
import { secondsToNextDay, sendDay } from './pacing.ts';
import type { DailySendCap, DailySends, SendBatchRepository, SendQueue, Suppressions } from './ports.ts';
import { type RateBudget, takeRecipients } from './recipient-budget.ts';
import { type StandingCheck, sendingPaused } from './reputation.ts';
import { requireVerifiedSender, type SenderDeps } from './senders.ts';

export interface AcceptBulkDeps {
  readonly senders: SenderDeps;
  readonly dailySends: DailySends;
  /** The bounce and complaint guard: why the store's marketing mail is paused, if it is. */
  readonly standing: StandingCheck;
  /** Told when a paused store's send is refused (the alarmed metric). */
  readonly onPaused?: (storeId: string) => void;
  /** Marketing emails per store per UTC day (its own, or the deployment's); 0 for no cap. */
  readonly dailySendCap: DailySendCap;
  /** Recipients a store may have accepted per second (`recipient-budget.ts`). */
  readonly recipientBudget: { readonly budget: RateBudget; readonly perSecond: number };
  readonly suppressions: Suppressions;
  readonly batches: SendBatchRepository;
  readonly queue: SendQueue;
  readonly clock: Clock;
}

/** Counts the batch against the store's daily cap, or refuses it whole (429 until the next UTC day). */
const chargeDailyCap = async (deps: AcceptBulkDeps, storeId: string, count: number) => {
  if (count === 0) return;
  const cap = await deps.dailySendCap(storeId);
  if (cap <= 0) return;
  const now = deps.clock.now();
  if (await deps.dailySends.take(storeId, sendDay(now), count, cap)) return;
  throw rateLimited(
    secondsToNextDay(now),
    `The store's daily cap of ${cap} marketing emails does not leave room for ${count} more today; retry after midnight UTC`,
  );
};

/** `POST {sending_url}/api/v1/sending`. */
export const acceptBulk = async (
  deps: AcceptBulkDeps,
  storeId: string,
  request: BulkRequest,
): Promise<AcceptedBatch> => {
  const fromEmail = normalizeAddress(request.from.email) as string;
  await requireVerifiedSender(deps.senders, storeId, fromEmail);
  const paused = await deps.standing(storeId);
  if (paused) {
    deps.onPaused?.(storeId);
    throw sendingPaused(paused);
  }
  // Before anything is read or written for the recipients: the budget bounds that work per store.
  const { budget, perSecond } = deps.recipientBudget;
  await takeRecipients(budget, deps.clock, perSecond, storeId, request.recipients.length);

  const seen = new Set<string>();
  // Every field that ends up in a header, as a template: checked per recipient after substitution.
  const headerTemplates = [
    request.subject,
    request.from.name,
    request.replyTo ?? '',
    ...Object.values(request.headers ?? {}),
  ];
  const common = request.substitutionData ?? {};
  const candidates = request.recipients.map((recipient, index): SendRecipient => {
    const { email: raw, name, substitutionData } = recipient.address;
    const email = normalizeAddress(raw);
    if (!email) return { index, email: raw.trim().slice(0, 320), status: 'rejected', reason: 'invalid_address' };
    const key = email.toLowerCase();
    if (seen.has(key)) return { index, email, status: 'rejected', reason: 'duplicate' };
    seen.add(key);
    if (lineBreakInHeaders(headerTemplates, { ...common, ...substitutionData })) {
      return { index, email, status: 'rejected', reason: 'header_line_break' };
    }
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
  await chargeDailyCap(deps, storeId, recipients.length - rejections.length);
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
