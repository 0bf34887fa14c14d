/** The send worker's rules, on in-memory ports: retries only what SES did not take, nothing lost, nothing sent twice. */
import { describe, expect, it } from 'vitest';
import type { SendBatch, SendRecipient } from '#shared/domain/email/bulk-model.ts';
import type { BulkEntryResult, OutboundBulk, SentMessage } from '#shared/domain/email/model.ts';
import type { Mailer, SendBatchRepository } from '#shared/domain/email/ports.ts';
import { handleSendMessage, type SendWorkerDeps } from '#shared/domain/email/send-chunk.ts';
import { PermanentError } from '#shared/errors.ts';
import { memoryBatches, scriptedMailer } from '#test/support/memory/email.ts';

const batchOf = (recipients: number): SendBatch => ({
  storeId: 'st_1',
  id: 'sb_1',
  createdAt: 0,
  from: { email: 'news@shop.example', name: 'Shop' },
  replyTo: 'news@shop.example',
  subject: 'Hi {{name}}',
  html: '<html><body><p>Hi</p></body></html>',
  preheader: 'Preview & more',
  headers: { 'X-Campaign': 'c1' },
  substitutionData: { name: 'friend' },
  totalAccepted: recipients,
  totalRejected: 0,
  chunks: [{ first: 0, last: recipients - 1 }],
  sent: 0,
  failed: 0,
  chunksDone: 0,
});

const queued = (count: number): SendRecipient[] =>
  Array.from({ length: count }, (_, index) => ({
    index,
    email: `r${index}@example.com`,
    substitutionData: { name: `R${index}` },
    status: 'queued',
  }));

const allSent = (entries: OutboundBulk['entries']): BulkEntryResult[] =>
  entries.map((e) => ({ status: 'sent', messageId: `m-${e.to.email}` }));

const depsWith = (repo: SendBatchRepository, mailer: Mailer, overrides: Partial<SendWorkerDeps> = {}) => {
  const recorded: SentMessage[] = [];
  const requeued: { chunks: readonly number[]; delay: number | undefined }[] = [];
  const deps: SendWorkerDeps = {
    batches: repo,
    queue: {
      startBatch: async () => undefined,
      enqueueChunks: async (_s, _b, chunks, delay) => {
        requeued.push({ chunks, delay });
      },
    },
    mailer,
    sentMessages: {
      record: async (messages) => {
        recorded.push(...messages);
      },
      get: async () => undefined,
      firstOpen: async () => false,
    },
    pacer: { reserve: async () => ({ at: 0 }) },
    unsubscribeUrl: async (claim) => `https://send.example/unsubscribe/${claim.email}/${claim.transmissionId}`,
    clock: { now: () => 1_000 },
    sleep: async () => undefined,
    sendRatePerSecond: 14,
    leaseMs: 90_000,
    ...overrides,
  };
  return { deps, recorded, requeued };
};

const chunkMessage = { v: 1, type: 'chunk', storeId: 'st_1', batchId: 'sb_1', chunk: 0 } as const;
const first = { receiveCount: 1, maxReceiveCount: 5 };

describe('send worker', () => {
  it('sends a chunk in one call: per-entry data, unsubscribe headers, tags, preheader; records and counts', async () => {
    const store = memoryBatches(batchOf(3), queued(3));
    const { mailer, calls } = scriptedMailer([allSent]);
    const { deps, recorded } = depsWith(store.repo, mailer);
    expect(await handleSendMessage(deps, chunkMessage, first)).toEqual({ done: 'sent' });
    expect(calls).toHaveLength(1);
    const [bulk] = calls;
    expect(bulk?.entries[1]).toEqual({
      to: { email: 'r1@example.com' },
      data: { name: 'R1' },
      headers: {
        'List-Unsubscribe': '<https://send.example/unsubscribe/r1@example.com/sb_1>',
        'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      },
    });
    expect(bulk?.tags).toEqual({
      'storeflow-store': 'st_1',
      'storeflow-transmission': 'sb_1',
      'storeflow-kind': 'bulk',
    });
    expect(bulk?.html).toMatch(/^<html><body><div style="display:none[^"]*">Preview &amp; more<\/div><p>Hi<\/p>/);
    expect(bulk?.replyTo).toEqual(['news@shop.example']);
    expect(recorded.map((m) => m.rcptTo)).toEqual(['r0@example.com', 'r1@example.com', 'r2@example.com']);
    expect(store.rows.get(2)).toMatchObject({ status: 'sent', messageId: 'm-r2@example.com' });
    expect(store.batch()).toMatchObject({ sent: 3, failed: 0, chunksDone: 1 });

    // Delivered again: the chunk is done, nothing goes out.
    expect(await handleSendMessage(deps, chunkMessage, first)).toEqual({ done: 'skipped' });
    expect(calls).toHaveLength(1);
  });

  it("counts a completed chunk's sent emails for the store's counters once, not again when delivered twice", async () => {
    const store = memoryBatches(batchOf(3), queued(3));
    const { mailer } = scriptedMailer([allSent]);
    const told: [string, number][] = [];
    const { deps } = depsWith(store.repo, mailer, {
      onChunkSent: async (batch, sent) => {
        told.push([batch.id, sent]);
      },
    });
    expect(await handleSendMessage(deps, chunkMessage, first)).toEqual({ done: 'sent' });
    expect(await handleSendMessage(deps, chunkMessage, first)).toEqual({ done: 'skipped' });
    expect(told).toEqual([['sb_1', 3]]);
  });

  it('retries only the recipients SES refused for a passing reason, and marks the permanent refusals failed', async () => {
    const store = memoryBatches(batchOf(3), queued(3));
    const { mailer, calls } = scriptedMailer([
      (entries) =>
        [
          { status: 'sent', messageId: 'm0' },
          { status: 'failed', error: 'ACCOUNT_THROTTLED', permanent: false },
          { status: 'failed', error: 'MESSAGE_REJECTED: bad', permanent: true },
        ].slice(0, entries.length) as BulkEntryResult[],
      allSent,
    ]);
    const { deps } = depsWith(store.repo, mailer);
    expect(await handleSendMessage(deps, chunkMessage, first)).toEqual({ retryInSeconds: 10 });
    expect(store.rows.get(1)).toMatchObject({ status: 'queued', attempts: 1, error: 'ACCOUNT_THROTTLED' });
    expect(store.rows.get(2)).toMatchObject({ status: 'failed', error: 'MESSAGE_REJECTED: bad' });
    expect(store.batch().chunksDone).toBe(0);

    expect(await handleSendMessage(deps, chunkMessage, { receiveCount: 2, maxReceiveCount: 5 })).toEqual({
      done: 'sent',
    });
    expect(calls[1]?.entries.map((e) => e.to.email)).toEqual(['r1@example.com']);
    expect(store.rows.get(1)).toMatchObject({ status: 'sent', messageId: 'm-r1@example.com' });
    expect(store.rows.get(1)?.error).toBeUndefined();
    expect(store.batch()).toMatchObject({ sent: 2, failed: 1, chunksDone: 1 });
  });

  it('marks every recipient failed when SES refuses the whole call for good', async () => {
    const store = memoryBatches(batchOf(2), queued(2));
    const { mailer } = scriptedMailer([() => new PermanentError('SES refused the message: MessageRejected')]);
    const { deps, recorded } = depsWith(store.repo, mailer);
    expect(await handleSendMessage(deps, chunkMessage, first)).toEqual({ done: 'sent' });
    expect([...store.rows.values()].map((r) => r.status)).toEqual(['failed', 'failed']);
    expect(store.rows.get(0)?.error).toContain('MessageRejected');
    expect(recorded).toEqual([]);
    expect(store.batch()).toMatchObject({ sent: 0, failed: 2, chunksDone: 1 });
  });

  it('rethrows a passing failure of the whole call (the queue retries), and gives up on the last attempt', async () => {
    const store = memoryBatches(batchOf(2), queued(2));
    const throttled = Object.assign(new Error('Maximum sending rate exceeded'), { name: 'TooManyRequestsException' });
    const { mailer } = scriptedMailer([() => throttled]);
    const { deps } = depsWith(store.repo, mailer);
    await expect(handleSendMessage(deps, chunkMessage, first)).rejects.toBe(throttled);
    expect([...store.rows.values()].map((r) => r.status)).toEqual(['queued', 'queued']);
    // The lease was given back: the retry does not wait for it.
    expect(await handleSendMessage(deps, chunkMessage, { receiveCount: 5, maxReceiveCount: 5 })).toEqual({
      done: 'sent',
    });
    expect(store.rows.get(0)).toMatchObject({ status: 'failed' });
    expect(store.rows.get(0)?.error).toContain('gave up after repeated errors: Maximum sending rate exceeded');
    expect(store.batch()).toMatchObject({ failed: 2, chunksDone: 1 });
  });

  it('re-queues the chunk with a delay when no send slot is free soon, without sending', async () => {
    const store = memoryBatches(batchOf(2), queued(2));
    const { mailer, calls } = scriptedMailer([allSent]);
    const { deps, requeued } = depsWith(store.repo, mailer, {
      pacer: { reserve: async () => ({ retryInSeconds: 25 }) },
    });
    expect(await handleSendMessage(deps, chunkMessage, first)).toEqual({ done: 'deferred' });
    expect(requeued).toEqual([{ chunks: [0], delay: 25 }]);
    expect(calls).toHaveLength(0);
    // The lease is free again for the re-queued message.
    const { deps: later } = depsWith(store.repo, mailer);
    expect(await handleSendMessage(later, chunkMessage, first)).toEqual({ done: 'sent' });
  });

  it('waits for its send slot before sending', async () => {
    const store = memoryBatches(batchOf(1), queued(1));
    const { mailer } = scriptedMailer([allSent]);
    const waits: number[] = [];
    const { deps } = depsWith(store.repo, mailer, {
      pacer: { reserve: async () => ({ at: 4_000 }) },
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    await handleSendMessage(deps, chunkMessage, first);
    expect(waits).toEqual([3_000]);
  });

  it('retries the record of what SES took before giving anything back: a failing write sends nothing twice', async () => {
    const store = memoryBatches(batchOf(2), queued(2));
    const { mailer, calls } = scriptedMailer([allSent, allSent]);
    let failures = 2;
    const recorded: SentMessage[] = [];
    const waits: number[] = [];
    const { deps } = depsWith(store.repo, mailer, {
      sentMessages: {
        record: async (messages) => {
          if (failures-- > 0) throw Object.assign(new Error('throttled'), { name: 'ThrottlingException' });
          recorded.push(...messages);
        },
        get: async () => undefined,
        firstOpen: async () => false,
      },
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    expect(await handleSendMessage(deps, chunkMessage, first)).toEqual({ done: 'sent' });
    expect(calls).toHaveLength(1);
    expect(recorded).toHaveLength(2);
    expect(waits).toEqual([100, 200]);
  });

  it('keeps the lease of a chunk SES took when its states cannot be saved, so no retry sends it again', async () => {
    const store = memoryBatches(batchOf(2), queued(2));
    const { mailer, calls } = scriptedMailer([allSent, allSent]);
    const down = Object.assign(new Error('table unavailable'), { name: 'InternalServerError' });
    const { deps } = depsWith(
      store.repo,
      { ...mailer },
      {
        batches: {
          ...store.repo,
          saveRecipients: async () => {
            throw down;
          },
        },
      },
    );
    await expect(handleSendMessage(deps, chunkMessage, first)).rejects.toBe(down);
    expect(calls).toHaveLength(1);
    // The queue's retry finds the lease held (until it runs out) rather than sending the two emails again.
    const { deps: retry } = depsWith(store.repo, mailer);
    expect(await handleSendMessage(retry, chunkMessage, { receiveCount: 2, maxReceiveCount: 5 })).toEqual({
      done: 'skipped',
    });
    expect(calls).toHaveLength(1);
  });

  it('counts a lease taken over after it ran out (the at-least-once window), not one given back', async () => {
    const store = memoryBatches(batchOf(1), queued(1));
    await store.repo.claimChunk('st_1', 'sb_1', 0, 1);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const { mailer } = scriptedMailer([allSent]);
    let retaken = 0;
    const { deps } = depsWith(store.repo, mailer, { onRetaken: () => void retaken++ });
    expect(await handleSendMessage(deps, chunkMessage, first)).toEqual({ done: 'sent' });
    expect(retaken).toBe(1);
  });

  it('drops a duplicate delivery while another attempt holds the chunk', async () => {
    const store = memoryBatches(batchOf(1), queued(1));
    await store.repo.claimChunk('st_1', 'sb_1', 0, 90_000);
    const { mailer, calls } = scriptedMailer([allSent]);
    const { deps } = depsWith(store.repo, mailer);
    expect(await handleSendMessage(deps, chunkMessage, first)).toEqual({ done: 'skipped' });
    expect(calls).toHaveLength(0);
  });

  it('fans a batch out into every chunk, and refuses messages for a batch that does not exist', async () => {
    const store = memoryBatches(
      {
        ...batchOf(3),
        chunks: [
          { first: 0, last: 1 },
          { first: 2, last: 2 },
        ],
      },
      queued(3),
    );
    const { deps, requeued } = depsWith(store.repo, scriptedMailer([allSent]).mailer);
    expect(await handleSendMessage(deps, { ...chunkMessage, type: 'batch' }, first)).toEqual({ done: 'fanned_out' });
    expect(requeued).toEqual([{ chunks: [0, 1], delay: undefined }]);
    const missing = { ...store.repo, get: async () => undefined };
    await expect(handleSendMessage({ ...deps, batches: missing }, chunkMessage, first)).rejects.toBeInstanceOf(
      PermanentError,
    );
    await expect(handleSendMessage(deps, { ...chunkMessage, chunk: 7 }, first)).rejects.toBeInstanceOf(PermanentError);
  });
  it("spreads a large batch's chunks over the store's share of the send rate instead of queuing them all at once", async () => {
    // 2,000 recipients in 40 chunks of 50; an account rate of 20/s leaves the store 10 marketing emails a second, so
    // chunk i is due after 5·i seconds. Queued at once, the 40 chunks all asked the pacer for slots in one second.
    const chunks = Array.from({ length: 40 }, (_, i) => ({ first: i * 50, last: i * 50 + 49 }));
    const store = memoryBatches({ ...batchOf(2_000), chunks }, queued(2_000));
    const { deps, requeued } = depsWith(store.repo, scriptedMailer([allSent]).mailer, { sendRatePerSecond: 20 });
    expect(await handleSendMessage(deps, { ...chunkMessage, type: 'batch' }, first)).toEqual({ done: 'fanned_out' });
    expect(requeued).toEqual(chunks.map((_, i) => ({ chunks: [i], delay: i === 0 ? undefined : 5 * i })));
    // A fast account takes several chunks in one second; nothing waits past the queue's 15-minute delay limit.
    const fast = depsWith(store.repo, scriptedMailer([allSent]).mailer, { sendRatePerSecond: 500 });
    await handleSendMessage(fast.deps, { ...chunkMessage, type: 'batch' }, first);
    expect(fast.requeued.slice(0, 2)).toEqual([
      { chunks: [0, 1, 2, 3, 4], delay: undefined },
      { chunks: [5, 6, 7, 8, 9], delay: 1 },
    ]);
    expect(fast.requeued.flatMap((r) => r.chunks)).toEqual(chunks.map((_, i) => i));
    const slow = depsWith(store.repo, scriptedMailer([allSent]).mailer, { sendRatePerSecond: 1 });
    await handleSendMessage(slow.deps, { ...chunkMessage, type: 'batch' }, first);
    expect(Math.max(...slow.requeued.map((r) => r.delay ?? 0))).toBe(900);
    expect(slow.requeued.flatMap((r) => r.chunks)).toHaveLength(40);
  });
});
