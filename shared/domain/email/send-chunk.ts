/**
 * The send worker's use case. A queued batch is fanned out into one message per chunk; a chunk is sent as one
 * `SendBulkEmail` of its recipients still `queued`:
 *
 * 1. The chunk's lease is taken (a chunk already done is skipped; a duplicate delivery while another attempt holds the
 *    lease is dropped, the holder finishes it or its own message comes back).
 * 2. Message slots are reserved at the account's send rate; when none are free soon, the chunk is re-queued with a
 *    delay instead of waiting.
 * 3. The mail engine answers per recipient: sent ones are recorded as sent messages (email events find them there) and
 *    on their recipient; refused ones are marked failed with SES's reason; ones refused for a passing reason stay
 *    queued and the chunk is retried with a growing delay, until the queue's last attempt marks them failed.
 * 4. Once every recipient of the chunk is final, the chunk's counts are added to the batch, once.
 *
 * Redelivery never sends a recipient twice once its outcome is written. The one window left is a crash between SES's
 * answer and that write: the recipients of that chunk are sent again (at-least-once, as SQS itself is).
 */

import { persistAfterSend } from '#shared/domain/after-send.ts';
import type { Clock } from '#shared/domain/clock.ts';
import { PermanentError } from '#shared/errors.ts';
import type { CampaignChunk, ChunkRange, SendBatch, SendRecipient } from './bulk-model.ts';
import { escapeHtml } from './html-escape.ts';
import {
  BULK_CHUNK_SIZE,
  type BulkEntryResult,
  EMAIL_TAGS,
  listUnsubscribeHeaders,
  type OutboundBulk,
} from './model.ts';
import { chunkFanOut } from './pacing.ts';
import type { Mailer, SendBatchRepository, SendPacer, SendQueue, SentMessages } from './ports.ts';
import type { UnsubscribeClaim } from './unsubscribe-token.ts';

export type SendMessage =
  | { readonly v: 1; readonly type: 'batch'; readonly storeId: string; readonly batchId: string }
  | {
      readonly v: 1;
      readonly type: 'chunk';
      readonly storeId: string;
      readonly batchId: string;
      readonly chunk: number;
    };

export const parseSendMessage = (body: string): SendMessage => {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    throw new PermanentError('send message is not JSON');
  }
  const m = value as Record<string, unknown>;
  if (m?.v === 1 && typeof m.storeId === 'string' && typeof m.batchId === 'string') {
    if (m.type === 'batch') return { v: 1, type: 'batch', storeId: m.storeId, batchId: m.batchId };
    if (m.type === 'chunk' && Number.isInteger(m.chunk) && (m.chunk as number) >= 0) {
      return { v: 1, type: 'chunk', storeId: m.storeId, batchId: m.batchId, chunk: m.chunk as number };
    }
  }
  throw new PermanentError('send message has an unknown shape');
};

export interface SendWorkerDeps {
  readonly batches: SendBatchRepository;
  readonly queue: SendQueue;
  readonly mailer: Mailer;
  readonly sentMessages: SentMessages;
  readonly pacer: SendPacer;
  readonly unsubscribeUrl: (claim: UnsubscribeClaim) => Promise<string>;
  readonly clock: Clock;
  /** Told when a chunk's lease is taken over after running out (the `SendClaimsRetaken` metric). */
  readonly onRetaken?: () => void;
  readonly sleep: (ms: number) => Promise<void>;
  /** Campaign batches: whether the campaign was cancelled (its chunks not yet sent are then left unsent). */
  readonly campaignCancelled?: (storeId: string, campaignId: string) => Promise<boolean>;
  /**
   * Campaign batches: a chunk's outcome (the campaign's progress). Told by the attempt that completed the chunk, and
   * again by any later delivery of the chunk's message that finds it done: `chunk` (the campaign's page and the chunk)
   * makes the count once-only, so a worker stopped between completing the chunk and counting it loses no count.
   */
  readonly onCampaignChunk?: (
    storeId: string,
    campaignId: string,
    chunk: CampaignChunk | undefined,
    counts: { readonly sent: number; readonly failed: number },
  ) => Promise<void>;
  /**
   * Counts a completed chunk's sent emails in the store's counters (the console overview's bulk and campaign sent).
   * Told once, by the attempt that completed the chunk.
   */
  readonly onChunkSent?: (batch: SendBatch, sent: number, at: number) => Promise<void>;
  /** Messages per second the SES account allows. */
  readonly sendRatePerSecond: number;
  /** How long a chunk's lease lasts: longer than one attempt can run, shorter than the queue's visibility timeout. */
  readonly leaseMs: number;
}

/** Which delivery of the message this is, and the last one the queue allows. */
export interface Attempt {
  readonly receiveCount: number;
  readonly maxReceiveCount: number;
}

export type SendOutcome =
  | { readonly done: 'fanned_out' | 'sent' | 'skipped' | 'deferred' | 'cancelled' }
  /** Some recipients were refused for a passing reason: try the chunk again after this long. */
  | { readonly retryInSeconds: number };

/** The hidden preview line mail clients show after the subject, placed first in the body. */
const withPreheader = (html: string, preheader: string | undefined): string => {
  if (!preheader) return html;
  const block = `<div style="display:none;font-size:1px;line-height:1px;max-height:0;max-width:0;opacity:0;overflow:hidden;mso-hide:all">${escapeHtml(preheader)}</div>`;
  const body = /<body\b[^>]*>/i.exec(html);
  if (!body) return `${block}${html}`;
  const at = body.index + body[0].length;
  return `${html.slice(0, at)}${block}${html.slice(at)}`;
};

/** How long a chunk (or a failed attempt) is held back before the next try: 10, 20, 40 … s, at most 5 minutes. */
export const retryDelaySeconds = (receiveCount: number) => Math.min(300, 10 * 2 ** Math.max(0, receiveCount - 1));

/** A campaign's template may show the recipient's unsubscribe link in its body (`campaigns/content.ts`). */
const UNSUBSCRIBE_DATA = 'sf_unsubscribe_url';

const buildBulk = async (deps: SendWorkerDeps, batch: SendBatch, recipients: readonly SendRecipient[]) => {
  const entries = await Promise.all(
    recipients.map(async (r) => {
      const url = await deps.unsubscribeUrl({
        storeId: batch.storeId,
        email: r.email.toLowerCase(),
        transmissionId: batch.id,
      });
      const data = r.substitutionData ?? {};
      return {
        to: { email: r.email, ...(r.name ? { name: r.name } : {}) },
        data: batch.campaignId ? { ...data, [UNSUBSCRIBE_DATA]: url } : data,
        headers: listUnsubscribeHeaders(url),
      };
    }),
  );
  const bulk: OutboundBulk = {
    from: batch.from,
    replyTo: [batch.replyTo],
    subject: batch.subject,
    ...(batch.html !== undefined ? { html: withPreheader(batch.html, batch.preheader) } : {}),
    ...(batch.text !== undefined ? { text: batch.text } : {}),
    defaultData: batch.substitutionData,
    headers: batch.headers,
    tags: {
      [EMAIL_TAGS.store]: batch.storeId,
      [EMAIL_TAGS.transmission]: batch.id,
      [EMAIL_TAGS.kind]: 'bulk',
      ...(batch.campaignId ? { [EMAIL_TAGS.campaign]: batch.campaignId } : {}),
    },
    entries,
  };
  return bulk;
};

/** Sends the chunk's queued recipients; answers their new state, in the same order. */
const sendQueued = async (
  deps: SendWorkerDeps,
  batch: SendBatch,
  queued: readonly SendRecipient[],
  lastAttempt: boolean,
): Promise<SendRecipient[]> => {
  let results: BulkEntryResult[];
  try {
    results = await deps.mailer.sendBulk(await buildBulk(deps, batch, queued));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof PermanentError) {
      results = queued.map(() => ({ status: 'failed', error: message, permanent: true }));
    } else if (lastAttempt) {
      results = queued.map(() => ({
        status: 'failed',
        error: `gave up after repeated errors: ${message}`,
        permanent: true,
      }));
    } else {
      throw error;
    }
  }
  const now = deps.clock.now();
  return queued.map((recipient, i): SendRecipient => {
    const result = results[i] ?? { status: 'failed', error: 'no answer for this recipient', permanent: false };
    const { error: _lastError, ...rest } = recipient;
    if (result.status === 'sent') return { ...rest, status: 'sent', messageId: result.messageId, sentAt: now };
    if (result.permanent || lastAttempt) return { ...rest, status: 'failed', error: result.error };
    return { ...rest, status: 'queued', error: result.error, attempts: (recipient.attempts ?? 0) + 1 };
  });
};

/** A campaign batch's chunk as the campaign counts it; undefined for batches written before pages were recorded. */
const campaignChunkOf = (batch: SendBatch, chunk: number): CampaignChunk | undefined =>
  batch.campaignPage === undefined
    ? undefined
    : { page: batch.campaignPage, chunk: (batch.campaignChunkOffset ?? 0) + chunk };

/**
 * A delivery that finds a campaign batch's chunk done tells the campaign its outcome again, read back from the
 * recipients: the attempt that completed it may have stopped before counting it (the count is once-only per chunk, so
 * this adds nothing when it did count). Batches without their campaign page are left as before.
 */
const recountCampaignChunk = async (deps: SendWorkerDeps, batch: SendBatch, chunk: number, range: ChunkRange) => {
  const counted = campaignChunkOf(batch, chunk);
  if (!batch.campaignId || !counted || !deps.onCampaignChunk) return;
  const recipients = await deps.batches.recipientsBetween(batch.storeId, batch.id, range.first, range.last);
  await deps.onCampaignChunk(batch.storeId, batch.campaignId, counted, {
    sent: recipients.filter((r) => r.status === 'sent').length,
    failed: recipients.filter((r) => r.status === 'failed').length,
  });
};

const sendChunk = async (
  deps: SendWorkerDeps,
  batch: SendBatch,
  chunk: number,
  range: ChunkRange,
  attempt: Attempt,
): Promise<SendOutcome> => {
  const claim = await deps.batches.claimChunk(batch.storeId, batch.id, chunk, deps.leaseMs);
  if (!claim.claimed) {
    if (claim.done) await recountCampaignChunk(deps, batch, chunk, range);
    return { done: 'skipped' };
  }
  // How often the window between SES's answer and its record is hit: each retaken lease may re-send its chunk.
  if (claim.retaken) deps.onRetaken?.();
  const { lease } = claim;
  if (batch.campaignId && (await deps.campaignCancelled?.(batch.storeId, batch.campaignId))) {
    // A cancelled campaign's chunk is done without sending: its recipients stay `queued` (answered `cancelled`).
    await deps.batches.completeChunk(batch.storeId, batch.id, chunk, lease, { sent: 0, failed: 0 });
    return { done: 'cancelled' };
  }
  // Once SES accepted the chunk's emails, the chunk is never given back: a retry would send them again.
  let accepted = false;
  try {
    const inRange = await deps.batches.recipientsBetween(batch.storeId, batch.id, range.first, range.last);
    const queued = inRange.filter((r) => r.status === 'queued');
    let updated: SendRecipient[] = [];
    if (queued.length > 0) {
      const slots = await deps.pacer.reserve(queued.length, deps.sendRatePerSecond, {
        storeId: batch.storeId,
        sendClass: 'marketing',
      });
      if ('retryInSeconds' in slots) {
        await deps.batches.releaseChunk(batch.storeId, batch.id, chunk, lease);
        await deps.queue.enqueueChunks(batch.storeId, batch.id, [chunk], slots.retryInSeconds);
        return { done: 'deferred' };
      }
      const wait = slots.at - deps.clock.now();
      if (wait > 0) await deps.sleep(wait);
      updated = await sendQueued(deps, batch, queued, attempt.receiveCount >= attempt.maxReceiveCount);
      // The sent messages (an email event may arrive as soon as SES has the message) and the recipients' states (what
      // keeps a later attempt from sending them again) side by side: the window in which a crash sends the chunk
      // again is one round of writes, not two.
      const sent = updated.filter((r) => r.status === 'sent' && r.messageId);
      accepted = sent.length > 0;
      const retry = { sleep: deps.sleep };
      const recorded = persistAfterSend(
        () =>
          deps.sentMessages.record(
            sent.map((r) => ({
              messageId: r.messageId as string,
              storeId: batch.storeId,
              transmissionId: batch.id,
              kind: 'bulk',
              rcptTo: r.email,
              msgFrom: batch.from.email,
              sentAt: r.sentAt ?? deps.clock.now(),
              subject: batch.subject,
              ...(batch.campaignId ? { campaignId: batch.campaignId } : {}),
            })),
          ),
        retry,
      );
      const saved = persistAfterSend(() => deps.batches.saveRecipients(batch.storeId, batch.id, updated), retry);
      await Promise.all([recorded, saved]);
      accepted = false;
    }
    const byIndex = new Map(updated.map((r) => [r.index, r]));
    const final = inRange.map((r) => byIndex.get(r.index) ?? r);
    if (final.some((r) => r.status === 'queued')) {
      await deps.batches.releaseChunk(batch.storeId, batch.id, chunk, lease);
      return { retryInSeconds: retryDelaySeconds(attempt.receiveCount) };
    }
    const counts = {
      sent: final.filter((r) => r.status === 'sent').length,
      failed: final.filter((r) => r.status === 'failed').length,
    };
    const completed = await deps.batches.completeChunk(batch.storeId, batch.id, chunk, lease, counts);
    if (completed && counts.sent > 0) await deps.onChunkSent?.(batch, counts.sent, deps.clock.now());
    // Once per chunk: only the attempt that completed it counts it for its campaign (and a later delivery that finds
    // it done, should this attempt stop before: `recountCampaignChunk`).
    if (completed && batch.campaignId) {
      await deps.onCampaignChunk?.(batch.storeId, batch.campaignId, campaignChunkOf(batch, chunk), counts);
    }
    return { done: 'sent' };
  } catch (error) {
    // Let the next attempt start at once instead of waiting out the lease, unless SES took emails whose states could
    // not be saved: then the lease runs out first (docs/sending.md, "Exactly once").
    if (!accepted) await deps.batches.releaseChunk(batch.storeId, batch.id, chunk, lease).catch(() => undefined);
    throw error;
  }
};

export const handleSendMessage = async (
  deps: SendWorkerDeps,
  message: SendMessage,
  attempt: Attempt,
): Promise<SendOutcome> => {
  const batch = await deps.batches.get(message.storeId, message.batchId);
  if (!batch) throw new PermanentError(`send batch ${message.batchId} of store ${message.storeId} does not exist`);
  if (message.type === 'batch') {
    // Every chunk, every time: a chunk queued twice is sent once (its lease and recipients' states decide). Spread
    // over the store's share of the send rate, so the chunks do not all ask the pacer for slots at once.
    const sizes = batch.chunks.map((c) => Math.min(BULK_CHUNK_SIZE, c.last - c.first + 1));
    for (const { delaySeconds, chunks } of chunkFanOut(sizes, deps.sendRatePerSecond)) {
      await deps.queue.enqueueChunks(batch.storeId, batch.id, chunks, delaySeconds > 0 ? delaySeconds : undefined);
    }
    return { done: 'fanned_out' };
  }
  const range = batch.chunks[message.chunk];
  if (!range) throw new PermanentError(`send batch ${batch.id} has no chunk ${message.chunk}`);
  return sendChunk(deps, batch, message.chunk, range, attempt);
};
