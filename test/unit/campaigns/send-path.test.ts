/** A campaign's batches on the bulk send path: tagged, with the unsubscribe link in the data, stopped by a cancel. */
import { describe, expect, it } from 'vitest';
import { campaignScope, countsFor } from '#shared/domain/attribution/model.ts';
import type { SendBatch, SendRecipient } from '#shared/domain/email/bulk-model.ts';
import { type BulkEntryResult, EMAIL_TAGS, type OutboundBulk, type SentMessage } from '#shared/domain/email/model.ts';
import { handleSendMessage, type SendWorkerDeps } from '#shared/domain/email/send-chunk.ts';
import { memoryBatches, scriptedMailer } from '#test/support/memory/email.ts';

const batch: SendBatch = {
  storeId: 'st_1',
  id: 'sb_camp',
  campaignId: 'cmp_1',
  campaignPage: 3,
  createdAt: 0,
  from: { email: 'news@shop.example', name: 'Shop' },
  replyTo: 'news@shop.example',
  subject: 'Hello {{sf_first_name}}',
  text: 'Unsubscribe: {{sf_unsubscribe_url}}',
  headers: {},
  substitutionData: {},
  totalAccepted: 2,
  totalRejected: 0,
  chunks: [{ first: 0, last: 1 }],
  sent: 0,
  failed: 0,
  chunksDone: 0,
};
const recipients: SendRecipient[] = [0, 1].map((index) => ({
  index,
  email: `r${index}@example.com`,
  substitutionData: { sf_first_name: `R${index}` },
  status: 'queued',
}));
const allSent = (entries: OutboundBulk['entries']): BulkEntryResult[] =>
  entries.map((e) => ({ status: 'sent', messageId: `m-${e.to.email}` }));
const chunk = { v: 1, type: 'chunk', storeId: 'st_1', batchId: 'sb_camp', chunk: 0 } as const;
const attempt = { receiveCount: 1, maxReceiveCount: 5 };

const setup = (cancelled: boolean, of: SendBatch = batch) => {
  const store = memoryBatches(
    of,
    recipients.map((r) => ({ ...r })),
  );
  const { mailer, calls } = scriptedMailer([allSent]);
  const recorded: SentMessage[] = [];
  const told: { campaignId: string; sent: number; failed: number }[] = [];
  // As the campaign repository counts: once per chunk (`addOutcome`).
  const counted = new Set<string>();
  let failCount = 0;
  const deps: SendWorkerDeps = {
    batches: store.repo,
    queue: { startBatch: async () => undefined, enqueueChunks: async () => undefined },
    mailer,
    sentMessages: {
      record: async (messages) => void recorded.push(...messages),
      get: async () => undefined,
      firstOpen: async () => false,
    },
    pacer: { reserve: async () => ({ at: 0 }) },
    unsubscribeUrl: async (claim) => `https://send.example/u/${claim.email}`,
    clock: { now: () => 1_000 },
    sleep: async () => undefined,
    sendRatePerSecond: 14,
    leaseMs: 90_000,
    campaignCancelled: async () => cancelled,
    onCampaignChunk: async (_s, campaignId, chunkOf, counts) => {
      if (failCount > 0) {
        failCount -= 1;
        throw new Error('the worker stopped before counting');
      }
      const key = `${chunkOf?.page}#${chunkOf?.chunk}`;
      if (counted.has(key)) return;
      counted.add(key);
      told.push({ campaignId, ...counts });
    },
  };
  const failNextCounts = (n: number) => {
    failCount = n;
  };
  return { deps, store, calls, recorded, told, counted, failNextCounts };
};

describe("a campaign's send batch", () => {
  it('is sent tagged with its campaign, each entry carrying its unsubscribe link, and counted once for it', async () => {
    const { deps, calls, recorded, told } = setup(false);
    expect(await handleSendMessage(deps, chunk, attempt)).toEqual({ done: 'sent' });
    expect(calls[0]?.tags[EMAIL_TAGS.campaign]).toBe('cmp_1');
    expect(calls[0]?.entries[1]?.data).toEqual({
      sf_first_name: 'R1',
      sf_unsubscribe_url: 'https://send.example/u/r1@example.com',
    });
    expect(calls[0]?.entries[1]?.headers).toMatchObject({ 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' });
    expect(recorded.map((m) => m.campaignId)).toEqual(['cmp_1', 'cmp_1']);
    expect(told).toEqual([{ campaignId: 'cmp_1', sent: 2, failed: 0 }]);
    // A redelivered chunk is done: nothing sent or counted again.
    expect(await handleSendMessage(deps, chunk, { ...attempt, receiveCount: 2 })).toEqual({ done: 'skipped' });
    expect(told).toHaveLength(1);
  });

  it('is counted by a later delivery when the attempt that sent it stopped before counting: once, as sent', async () => {
    const { deps, calls, told, counted, failNextCounts } = setup(false);
    failNextCounts(1);
    await expect(handleSendMessage(deps, chunk, attempt)).rejects.toThrow('the worker stopped before counting');
    expect(told).toEqual([]);
    // The message comes back: the chunk is done (not sent again), and its outcome is read back and counted.
    expect(await handleSendMessage(deps, chunk, { ...attempt, receiveCount: 2 })).toEqual({ done: 'skipped' });
    expect(calls).toHaveLength(1);
    expect(told).toEqual([{ campaignId: 'cmp_1', sent: 2, failed: 0 }]);
    expect([...counted]).toEqual(['3#0']);
    expect(await handleSendMessage(deps, chunk, { ...attempt, receiveCount: 3 })).toEqual({ done: 'skipped' });
    expect(told).toHaveLength(1);
  });

  it("counts a held batch's chunk by its number among its page's chunks, after the page's", async () => {
    const { deps, told, counted } = setup(false, { ...batch, campaignChunkOffset: 2 });
    expect(await handleSendMessage(deps, chunk, attempt)).toEqual({ done: 'sent' });
    expect(told).toEqual([{ campaignId: 'cmp_1', sent: 2, failed: 0 }]);
    expect([...counted]).toEqual(['3#2']);
  });

  it('is not sent once its campaign is cancelled: the chunk is done, its recipients stay queued', async () => {
    const { deps, store, calls, told } = setup(true);
    expect(await handleSendMessage(deps, chunk, attempt)).toEqual({ done: 'cancelled' });
    expect(calls).toHaveLength(0);
    expect(told).toEqual([]);
    expect([...store.rows.values()].map((r) => r.status)).toEqual(['queued', 'queued']);
    expect(await handleSendMessage(deps, chunk, attempt)).toEqual({ done: 'skipped' });
  });

  it("counts its SES events for the campaign's scope too", () => {
    const scopes = countsFor({ kind: 'bulk', batchId: 'sb_camp', campaignId: 'cmp_1', at: 0 }, { opened: 1 }).map(
      (c) => c.scope,
    );
    expect(scopes).toEqual(['store', 'batch#sb_camp', campaignScope('cmp_1')]);
  });
});
