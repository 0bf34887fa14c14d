/** In-memory doubles of the email area's ports (`shared/domain/email/ports.ts`), for unit tests. */
import type { SendBatch, SendRecipient } from '#shared/domain/email/bulk-model.ts';
import type { BulkEntryResult, OutboundBulk } from '#shared/domain/email/model.ts';
import type { ChunkClaim, Mailer, SendBatchRepository } from '#shared/domain/email/ports.ts';

/** An in-memory batch repository with the adapter's lease rules. */
export const memoryBatches = (batch: SendBatch, recipients: SendRecipient[]) => {
  const rows = new Map(recipients.map((r) => [r.index, r]));
  const chunks = new Map<number, { status: 'sending' | 'done'; lease: string; until: number }>();
  let current = batch;
  const done = new Set<number>();
  let leases = 0;
  const repo: SendBatchRepository = {
    create: async () => undefined,
    get: async () => current,
    recipientsBetween: async (_s, _b, first, last) =>
      [...rows.values()].filter((r) => r.index >= first && r.index <= last).sort((a, b) => a.index - b.index),
    problems: async () => [...rows.values()].filter((r) => r.status === 'rejected' || r.status === 'failed'),
    saveRecipients: async (_s, _b, updated) => {
      for (const r of updated) rows.set(r.index, r);
    },
    claimChunk: async (_s, _b, chunk, leaseMs): Promise<ChunkClaim> => {
      const state = chunks.get(chunk);
      if (state?.status === 'done') return { claimed: false, done: true };
      if (state && state.until > Date.now()) return { claimed: false, done: false };
      const lease = `lease-${++leases}`;
      chunks.set(chunk, { status: 'sending', lease, until: Date.now() + leaseMs });
      // A lease that ran out rather than being given back (released leases have `until` 0).
      return state && state.until > 0 ? { claimed: true, lease, retaken: true } : { claimed: true, lease };
    },
    releaseChunk: async (_s, _b, chunk, lease) => {
      const state = chunks.get(chunk);
      if (state?.lease === lease) state.until = 0;
    },
    completeChunk: async (_s, _b, chunk, lease, counts) => {
      if (!done.has(chunk)) {
        done.add(chunk);
        current = {
          ...current,
          sent: current.sent + counts.sent,
          failed: current.failed + counts.failed,
          chunksDone: current.chunksDone + 1,
        };
      }
      const state = chunks.get(chunk);
      if (state?.lease !== lease) return false;
      state.status = 'done';
      return true;
    },
  };
  return { repo, rows, batch: () => current };
};

/** A mailer scripted per call: each call answers the next script entry for each of its entries. */
export const scriptedMailer = (script: ((entries: OutboundBulk['entries']) => BulkEntryResult[] | Error)[]) => {
  const calls: OutboundBulk[] = [];
  let n = 0;
  const mailer: Mailer = {
    send: async () => ({ messageId: 'x' }),
    sendBulk: async (bulk) => {
      calls.push(bulk);
      const step = script[Math.min(n++, script.length - 1)];
      const answer = step ? step(bulk.entries) : new Error('no script');
      if (answer instanceof Error) throw answer;
      return answer;
    },
  };
  return { mailer, calls };
};
