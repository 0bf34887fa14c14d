import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TABLE_NAME } from '#local/resources.ts';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamo } from '#shared/adapters/aws-clients.ts';
import { batchPut } from '#shared/adapters/dynamodb/batch.ts';
import { dynamoSendOutcomes } from '#shared/adapters/dynamodb/campaigns.repositories.ts';
import { itemMeta, keys } from '#shared/adapters/dynamodb/keys.ts';
import { dynamoDailySends, dynamoSendPacer } from '#shared/adapters/dynamodb/send-pacer.ts';
import {
  dynamoSendBatches,
  dynamoSendBatchList,
  dynamoSenders,
} from '#shared/adapters/dynamodb/sending.repositories.ts';
import { GetCommand, PutCommand, QueryCommand } from '#shared/adapters/dynamodb-client.ts';
import { planChunks, type SendBatch, type SendRecipient } from '#shared/domain/email/bulk-model.ts';
import { dynamodbCallsDuring } from '#test/support/local.ts';

let runtime: LocalRuntime;
beforeAll(async () => {
  runtime = await startLocalRuntime({ gateways: false, pollers: false, logLevel: 'ERROR' });
});
afterAll(async () => {
  await runtime?.stop();
});

const manualClock = (start: number) => {
  let now = start;
  return { now: () => now, set: (ms: number) => (now = ms) };
};

describe('send pacer (shared counters per second)', () => {
  it('never lets two instances reserve more than the rate in any second, spreading a chunk over seconds', async () => {
    // A second far from any other test's, so the account-wide counter starts empty.
    const clock = manualClock(2_000_000_000_000);
    const [a, b] = [dynamoSendPacer(clock, { horizonSeconds: 20 }), dynamoSendPacer(clock, { horizonSeconds: 20 })];
    // Three stores' transactional mail: the account rate binds (each store's share is 7 a second).
    const owner = (storeId: string) => ({ storeId, sendClass: 'transactional' as const });
    const answers = await Promise.all([
      a.reserve(50, 14, owner('st_a')),
      b.reserve(50, 14, owner('st_b')),
      a.reserve(20, 14, owner('st_c')),
    ]);
    const seconds = answers.map((answer) => ('at' in answer ? answer.at / 1000 - 2_000_000_000 : -1));
    // 120 slots at 14 per second need at least 9 seconds (0..8); the third store, at most 7 a second, may need one more.
    expect(Math.max(...seconds)).toBeGreaterThanOrEqual(8);
    expect(Math.max(...seconds)).toBeLessThanOrEqual(9);
    let total = 0;
    for (let s = 0; s <= 9; s++) {
      const { Item } = await dynamo().send(
        new GetCommand({ TableName: TABLE_NAME, Key: keys.rate('ses-send', 2_000_000_000 + s), ConsistentRead: true }),
      );
      const hits = Number(Item?.hits ?? 0);
      expect(hits).toBeLessThanOrEqual(14);
      total += hits;
    }
    expect(total).toBe(120);
  });

  it("walks a store's full seconds once: a 2,000-recipient send's chunks cost a few calls each, not one per second", async () => {
    const clock = manualClock(2_000_000_300_000);
    const pacer = dynamoSendPacer(clock, { horizonSeconds: 20 });
    const owner = { storeId: 'st_walk', sendClass: 'marketing' as const };
    const before = runtime.dynamodbCalls();
    const answers = [];
    // 40 chunks of 50 at an account rate of 50 (the store's share: 25 a second): 10 fit the horizon, 30 are put off.
    for (let chunk = 0; chunk < 40; chunk++) answers.push(await pacer.reserve(50, 50, owner));
    const after = runtime.dynamodbCalls();
    const calls = Object.keys(after).reduce((sum, name) => sum + (after[name] ?? 0) - (before[name] ?? 0), 0);
    expect(answers.filter((a) => 'at' in a)).toHaveLength(10);
    expect(answers.filter((a) => 'retryInSeconds' in a)).toHaveLength(30);
    // Walking every full second from the first, as before, took 1,540 calls here; now 160.
    expect(calls).toBeLessThan(200);
  });

  it("gathers a turn's reservations of one store into one, each caller answered its own slots' second", async () => {
    const clock = manualClock(2_000_000_500_000);
    const pacer = dynamoSendPacer(clock, { horizonSeconds: 20, gatherPerTurn: true });
    const owner = { storeId: 'st_gathered', sendClass: 'transactional' as const };
    const before = runtime.dynamodbCalls();
    // Twelve one-slot emails at 10 a second (the store's share: 5 a second, the account's 10): seconds 0, 1 and 2.
    const answers = await Promise.all(Array.from({ length: 12 }, () => pacer.reserve(1, 10, owner)));
    const after = runtime.dynamodbCalls();
    const calls = Object.keys(after).reduce((sum, name) => sum + (after[name] ?? 0) - (before[name] ?? 0), 0);
    expect(answers.map((a) => ('at' in a ? a.at / 1000 - 2_000_000_500 : -1))).toEqual([
      0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 2, 2,
    ]);
    // One walk over three seconds (store and account counter each), not twelve reservations of two writes or more.
    expect(calls).toBeLessThan(12);
    for (const [s, hits] of [
      [0, 5],
      [1, 5],
      [2, 2],
    ] as const) {
      const { Item } = await dynamo().send(
        new GetCommand({
          TableName: TABLE_NAME,
          Key: keys.rate('ses-send#st_gathered', 2_000_000_500 + s),
          ConsistentRead: true,
        }),
      );
      expect(Item?.hits).toBe(hits);
    }
    // Another store in the same turn reserves apart, on its own share.
    const [mine, other] = await Promise.all([
      pacer.reserve(1, 10, owner),
      pacer.reserve(1, 10, { storeId: 'st_gathered_other', sendClass: 'transactional' }),
    ]);
    expect(mine).toEqual({ at: 2_000_000_502_000 });
    expect(other).toEqual({ at: 2_000_000_500_000 });
  });

  it("takes a turn's slots of several stores from the account counter in one write, and never past either limit", async () => {
    const clock = manualClock(2_000_000_900_000);
    const pacer = dynamoSendPacer(clock, { horizonSeconds: 20, gatherPerTurn: true });
    const owner = (storeId: string) => ({ storeId, sendClass: 'transactional' as const });
    const counted = async (key: string, s: number) => {
      const { Item } = await dynamo().send(
        new GetCommand({ TableName: TABLE_NAME, Key: keys.rate(key, 2_000_000_900 + s), ConsistentRead: true }),
      );
      return Number(Item?.hits ?? 0);
    };
    // Eight stores, one email each, at 20 a second (each store's share: 10): all in second 0.
    const stores = Array.from({ length: 8 }, (_, i) => `st_across_${i}`);
    const before = runtime.dynamodbCalls();
    const answers = await Promise.all(stores.map((storeId) => pacer.reserve(1, 20, owner(storeId))));
    const after = runtime.dynamodbCalls();
    expect(answers).toEqual(stores.map(() => ({ at: 2_000_000_900_000 })));
    // One write per store's counter and one for the account's, not two per store.
    expect((after.UpdateItem ?? 0) - (before.UpdateItem ?? 0)).toBe(stores.length + 1);
    expect(await counted('ses-send', 0)).toBe(8);
    for (const storeId of stores) expect(await counted(`ses-send#${storeId}`, 0)).toBe(1);

    // The account binds: 12 slots left in second 0 and three stores asking 6 each (their share: 10): the first two
    // stores to ask get second 0, the third second 1; the third's slot of second 0 is given back to its counter.
    const three = ['st_across_a', 'st_across_b', 'st_across_c'];
    const more = await Promise.all(
      three.flatMap((storeId) => Array.from({ length: 6 }, () => pacer.reserve(1, 20, owner(storeId)))),
    );
    expect(more.map((a) => ('at' in a ? a.at / 1000 - 2_000_000_900 : -1))).toEqual([
      0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1,
    ]);
    expect(await counted('ses-send', 0)).toBe(20);
    expect(await counted('ses-send', 1)).toBe(6);
    expect(await counted('ses-send#st_across_c', 0)).toBe(0);
    expect(await counted('ses-send#st_across_c', 1)).toBe(6);
  });

  it("keeps a second's first account write within the account's limit when several stores' slots together pass it", async () => {
    const clock = manualClock(2_000_001_500_000);
    const pacer = dynamoSendPacer(clock, { horizonSeconds: 20, gatherPerTurn: true });
    const owner = (storeId: string) => ({ storeId, sendClass: 'marketing' as const });
    const counted = async (key: string, s: number) => {
      const { Item } = await dynamo().send(
        new GetCommand({ TableName: TABLE_NAME, Key: keys.rate(key, 2_000_001_500 + s), ConsistentRead: true }),
      );
      return Number(Item?.hits ?? 0);
    };
    // At 14 a second marketing mail has 11 of the account's second and a store 7: two stores asking 7 each in one
    // turn take 14 of their own counters, more than the account's 11, in a second nothing was reserved in yet.
    const stores = ['st_first_a', 'st_first_b'];
    const answers = await Promise.all(
      stores.flatMap((storeId) => Array.from({ length: 7 }, () => pacer.reserve(1, 14, owner(storeId)))),
    );
    expect(answers.map((a) => ('at' in a ? a.at / 1000 - 2_000_001_500 : -1))).toEqual([
      0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1,
    ]);
    expect(await counted('ses-send', 0)).toBe(11);
    expect(await counted('ses-send', 1)).toBe(3);
  });

  it("leases a store's slots of the second: a steady store's counter takes a few writes, never past its share", async () => {
    const base = 2_000_001_100;
    const clock = manualClock(base * 1000);
    const pacer = dynamoSendPacer(clock, { horizonSeconds: 20, gatherPerTurn: true, leaseStoreSlots: true });
    const owner = { storeId: 'st_leased', sendClass: 'transactional' as const };
    const counted = async (key: string, s: number) => {
      const { Item } = await dynamo().send(
        new GetCommand({ TableName: TABLE_NAME, Key: keys.rate(key, base + s), ConsistentRead: true }),
      );
      return Number(Item?.hits ?? 0);
    };
    const at = (answer: Awaited<ReturnType<typeof pacer.reserve>>) => ('at' in answer ? answer.at / 1000 - base : -1);
    // Second 0: ten emails one at a time (each its own turn) at 100 a second (the store's share: 50).
    for (let i = 0; i < 10; i++) expect(at(await pacer.reserve(1, 100, owner))).toBe(0);
    // Second 1: sixty, one at a time: fifty fit the store's share in second 1, the rest go to second 2.
    clock.set((base + 1) * 1000);
    const before = runtime.dynamodbCalls();
    const answers = [];
    for (let i = 0; i < 50; i++) answers.push(at(await pacer.reserve(1, 100, owner)));
    const after = runtime.dynamodbCalls();
    for (let i = 0; i < 10; i++) answers.push(at(await pacer.reserve(1, 100, owner)));
    expect(answers).toEqual([...Array.from({ length: 50 }, () => 1), ...Array.from({ length: 10 }, () => 2)]);
    // The account's counter is not leased: exactly what was sent. The store's never passes its share.
    expect(await counted('ses-send', 1)).toBe(50);
    expect(await counted('ses-send#st_leased', 1)).toBe(50);
    // Unleased, the store's counter took one write per email of second 1 (50) beside the account's 50.
    const writes = (after.UpdateItem ?? 0) - (before.UpdateItem ?? 0);
    expect(writes - 50).toBeGreaterThan(0);
    expect(writes - 50).toBeLessThan(8);
  });

  it('reserves each gathered caller alone when the whole does not fit the horizon: what fits still goes', async () => {
    const clock = manualClock(2_000_000_700_000);
    const pacer = dynamoSendPacer(clock, { horizonSeconds: 1, gatherPerTurn: true });
    const owner = { storeId: 'st_gathered_horizon', sendClass: 'transactional' as const };
    // The store's share is 5 a second, 10 within the horizon: the 8-slot ask fits alone, with the 4-slot one it does not.
    const [small, large] = await Promise.all([pacer.reserve(8, 10, owner), pacer.reserve(4, 10, owner)]);
    expect(small).toEqual({ at: 2_000_000_701_000 });
    expect('retryInSeconds' in large).toBe(true);
  });

  it('puts the work off, and gives its slots back, when they are not free within the horizon', async () => {
    const clock = manualClock(2_000_000_100_000);
    const pacer = dynamoSendPacer(clock, { horizonSeconds: 2 });
    const owner = { storeId: 'st_horizon', sendClass: 'transactional' as const };
    const answer = await pacer.reserve(50, 10, owner);
    expect('retryInSeconds' in answer && answer.retryInSeconds >= 2).toBe(true);
    // Its share is 5 a second: 15 slots fill seconds 0..2, the horizon's last.
    const next = await pacer.reserve(15, 10, owner);
    expect(next).toEqual({ at: 2_000_000_102_000 });
  });

  it("keeps a flooding store to its share and marketing out of the transactional reserve: the victim's mail goes now", async () => {
    const clock = manualClock(2_000_000_200_000);
    const pacer = dynamoSendPacer(clock, { horizonSeconds: 60 });
    const flood = await pacer.reserve(200, 14, { storeId: 'st_flood', sendClass: 'marketing' });
    // 7 a second (half the rate): 200 slots reach 28 seconds ahead.
    expect(flood).toEqual({ at: 2_000_000_228_000 });
    const second = 2_000_000_200;
    const hits = async (key: string) =>
      Number(
        (
          await dynamo().send(
            new GetCommand({ TableName: TABLE_NAME, Key: keys.rate(key, second), ConsistentRead: true }),
          )
        ).Item?.hits ?? 0,
      );
    expect(await hits('ses-send#st_flood')).toBe(7);
    // Another store's marketing and transactional mail both go in this very second.
    expect(await pacer.reserve(4, 14, { storeId: 'st_victim', sendClass: 'marketing' })).toEqual({ at: second * 1000 });
    expect(await pacer.reserve(3, 14, { storeId: 'st_shop', sendClass: 'transactional' })).toEqual({
      at: second * 1000,
    });
    // Marketing stops at 11 (14 less the reserve of 3); transactional may use the reserve.
    expect(await hits('ses-send')).toBe(14);
    expect(await pacer.reserve(1, 14, { storeId: 'st_late', sendClass: 'marketing' })).toEqual({
      at: (second + 1) * 1000,
    });
  });
});

const batch = (storeId: string, id: string): SendBatch => ({
  storeId,
  id,
  createdAt: Date.now(),
  from: { email: 'news@shop.example', name: 'Shop' },
  replyTo: 'news@shop.example',
  subject: 'S',
  text: 'T',
  headers: {},
  substitutionData: {},
  totalAccepted: 2,
  totalRejected: 1,
  chunks: [
    { first: 0, last: 0 },
    { first: 2, last: 2 },
  ],
  sent: 0,
  failed: 0,
  chunksDone: 0,
});

describe('send batches', () => {
  it('stores recipients and batch, reads ranges and problems, and counts a chunk once whatever the retries', async () => {
    const clock = manualClock(Date.now());
    const repo = dynamoSendBatches(clock);
    const storeId = `st_${randomUUID()}`;
    const recipients: SendRecipient[] = [
      { index: 0, email: 'a@example.com', status: 'queued' },
      { index: 1, email: 'bad', status: 'rejected', reason: 'invalid_address' },
      { index: 2, email: 'c@example.com', status: 'queued', substitutionData: { x: 1 } },
    ];
    await repo.create(batch(storeId, 'sb_a'), recipients);
    const { createdAt, ...stored } = batch(storeId, 'sb_a');
    expect(await repo.get(storeId, 'sb_a')).toMatchObject(stored);
    expect(await repo.get(`st_${randomUUID()}`, 'sb_a')).toBeUndefined();
    expect(await repo.recipientsBetween(storeId, 'sb_a', 1, 2)).toEqual(recipients.slice(1));
    expect(await repo.problems(storeId, 'sb_a')).toEqual([recipients[1]]);

    const claim = await repo.claimChunk(storeId, 'sb_a', 0, 90_000);
    expect(claim.claimed).toBe(true);
    expect(await repo.claimChunk(storeId, 'sb_a', 0, 90_000)).toEqual({ claimed: false, done: false });
    if (!claim.claimed) return;
    await repo.saveRecipients(storeId, 'sb_a', [
      { ...recipients[0], status: 'failed', error: 'MESSAGE_REJECTED' } as SendRecipient,
    ]);
    expect(await repo.completeChunk(storeId, 'sb_a', 0, claim.lease, { sent: 0, failed: 1 })).toBe(true);
    // A repeat (an attempt that stopped after counting) adds nothing.
    await repo.completeChunk(storeId, 'sb_a', 0, claim.lease, { sent: 0, failed: 1 });
    expect(await repo.get(storeId, 'sb_a')).toMatchObject({ failed: 1, sent: 0, chunksDone: 1 });
    expect(await repo.claimChunk(storeId, 'sb_a', 0, 90_000)).toEqual({ claimed: false, done: true });
    expect((await repo.problems(storeId, 'sb_a')).map((r) => r.status)).toEqual(['failed', 'rejected']);

    // An expired lease (a crashed attempt) is taken over; a released one at once.
    const second = await repo.claimChunk(storeId, 'sb_a', 1, 1_000);
    clock.set(clock.now() + 2_000);
    const takeover = await repo.claimChunk(storeId, 'sb_a', 1, 90_000);
    expect(second.claimed && takeover.claimed).toBe(true);
    if (takeover.claimed) await repo.releaseChunk(storeId, 'sb_a', 1, takeover.lease);
    expect((await repo.claimChunk(storeId, 'sb_a', 1, 90_000)).claimed).toBe(true);
  });

  it('keeps the first batch when the same id is created again: its done chunks and counts are not reset', async () => {
    const repo = dynamoSendBatches(manualClock(Date.now()));
    const storeId = `st_${randomUUID()}`;
    const recipients: SendRecipient[] = [{ index: 0, email: 'a@example.com', status: 'queued' }];
    await repo.create(batch(storeId, 'sb_twice'), recipients);
    const claim = await repo.claimChunk(storeId, 'sb_twice', 0, 90_000);
    if (!claim.claimed) throw new Error('the chunk was not claimed');
    expect(await repo.completeChunk(storeId, 'sb_twice', 0, claim.lease, { sent: 1, failed: 0 })).toBe(true);
    // A second attempt of the same campaign page, which found no batch a moment before the first wrote it.
    await repo.create(batch(storeId, 'sb_twice'), recipients);
    expect(await repo.get(storeId, 'sb_twice')).toMatchObject({ sent: 1, chunksDone: 1 });
    expect(await repo.claimChunk(storeId, 'sb_twice', 0, 90_000)).toEqual({ claimed: false, done: true });
  });
});

/** The items stored under the batch's partition whose sort key starts with `prefix`. */
const storedItems = async (storeId: string, batchId: string, prefix: string) =>
  (
    await dynamo().send(
      new QueryCommand({
        TableName: TABLE_NAME,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': keys.sendRecipients(storeId, batchId).pk, ':prefix': prefix },
        ConsistentRead: true,
      }),
    )
  ).Items ?? [];

/** A batch of `recipients` (their chunks planned as the service plans them). */
const plannedBatch = (storeId: string, id: string, recipients: readonly SendRecipient[]): SendBatch => {
  const rejected = recipients.filter((r) => r.status === 'rejected').length;
  return {
    ...batch(storeId, id),
    totalAccepted: recipients.length - rejected,
    totalRejected: rejected,
    chunks: planChunks(recipients),
  };
};

/** 2,000 recipients, every 7th rejected (the first two too), each with its own data. */
const twoThousand = (): SendRecipient[] =>
  Array.from(
    { length: 2000 },
    (_, index): SendRecipient =>
      index < 2 || index % 7 === 0
        ? { index, email: `bad-${index}`, status: 'rejected', reason: 'invalid_address' }
        : {
            index,
            email: `r${index}@example.com`,
            name: `Person ${index}`,
            substitutionData: { code: `C${index}`, nested: { n: index } },
            status: 'queued',
          },
  );

describe('send batches, recipients packed one item per chunk', () => {
  it('stores 2,000 recipients in a few batch writes and reads a chunk in one query', async () => {
    const repo = dynamoSendBatches(manualClock(Date.now()));
    const storeId = `st_${randomUUID()}`;
    const recipients = twoThousand();
    const stored = plannedBatch(storeId, 'sb_packed', recipients);
    // 1,713 accepted: 35 chunks; a pack for the two rejected before the first chunk, one per chunk.
    expect(stored.chunks).toHaveLength(35);
    const calls = await dynamodbCallsDuring(runtime, () => repo.create(stored, recipients));
    // One item per recipient took 80 BatchWriteItem calls of 25 (and the batch's PutItem).
    expect(calls).toEqual({ BatchWriteItem: 2, PutItem: 1 });
    expect(await storedItems(storeId, 'sb_packed', 'RPACK#')).toHaveLength(36);
    expect(await storedItems(storeId, 'sb_packed', 'RCPT#')).toHaveLength(0);
    // The plan under another name: code from before packs (a deploy's last moments) fails on it and is retried,
    // instead of finding no recipient items and marking the chunks done unsent.
    const [item] = await storedItems(storeId, 'sb_packed', 'BATCH');
    expect(item?.chunks).toBeUndefined();
    expect(item?.chunkPlan).toEqual(stored.chunks);
    expect((await repo.get(storeId, 'sb_packed'))?.chunks).toEqual(stored.chunks);

    // Each chunk: its recipients (the rejected ones among them too) from one Query.
    for (const [n, chunk] of stored.chunks.entries()) {
      let read: SendRecipient[] = [];
      const reads = await dynamodbCallsDuring(runtime, async () => {
        read = await repo.recipientsBetween(storeId, 'sb_packed', chunk.first, chunk.last);
      });
      expect(reads, `chunk ${n}`).toEqual({ Query: 1 });
      expect(read).toEqual(recipients.slice(chunk.first, chunk.last + 1));
    }
    // Any range, across packs and from inside one.
    expect(await repo.recipientsBetween(storeId, 'sb_packed', 0, 1)).toEqual(recipients.slice(0, 2));
    expect(await repo.recipientsBetween(storeId, 'sb_packed', 30, 140)).toEqual(recipients.slice(30, 141));
    expect(await repo.recipientsBetween(storeId, 'sb_packed', 1999, 2500)).toEqual(recipients.slice(1999));
    expect(await repo.problems(storeId, 'sb_packed')).toEqual(recipients.filter((r) => r.status === 'rejected'));

    // A chunk's write-back: its pack read and put whole, the rest of the batch untouched.
    const chunk = stored.chunks[3] as { first: number; last: number };
    const inChunk = await repo.recipientsBetween(storeId, 'sb_packed', chunk.first, chunk.last);
    const updated = inChunk
      .filter((r) => r.status === 'queued')
      .map(
        (r, i): SendRecipient =>
          i === 0
            ? { ...r, status: 'failed', error: 'MESSAGE_REJECTED' }
            : { ...r, status: 'sent', messageId: `m-${r.index}`, sentAt: 1 },
      );
    const writes = await dynamodbCallsDuring(runtime, () => repo.saveRecipients(storeId, 'sb_packed', updated));
    expect(writes).toEqual({ Query: 1, PutItem: 1 });
    const byIndex = new Map(updated.map((r) => [r.index, r]));
    expect(await repo.recipientsBetween(storeId, 'sb_packed', 0, 1999)).toEqual(
      recipients.map((r) => byIndex.get(r.index) ?? r),
    );
    expect((await repo.problems(storeId, 'sb_packed')).filter((r) => r.status === 'failed')).toEqual([updated[0]]);
  });

  it('splits a chunk whose substitution data would not fit one item, and writes it back whole', async () => {
    const repo = dynamoSendBatches(manualClock(Date.now()));
    const storeId = `st_${randomUUID()}`;
    // The request's limit: 16 KB of substitution data per recipient; 50 of them are 800 KB, over the 400 KB per item.
    const recipients = Array.from(
      { length: 60 },
      (_, index): SendRecipient => ({
        index,
        email: `big${index}@example.com`,
        name: 'N'.repeat(256),
        substitutionData: { blob: 'é'.repeat(8 * 1024 - 20) },
        status: 'queued',
      }),
    );
    const stored = plannedBatch(storeId, 'sb_big', recipients);
    expect(stored.chunks).toEqual([
      { first: 0, last: 49 },
      { first: 50, last: 59 },
    ]);
    await repo.create(stored, recipients);
    const packs = await storedItems(storeId, 'sb_big', 'RPACK#');
    expect(packs.length).toBeGreaterThanOrEqual(5);
    for (const pack of packs) expect(Buffer.byteLength(String(pack.recipients))).toBeLessThan(300 * 1024);
    // No pack holds recipients of two chunks.
    expect(packs.some((pack) => Number(pack.first) < 50 && Number(pack.last) >= 50)).toBe(false);
    expect(await repo.recipientsBetween(storeId, 'sb_big', 0, 49)).toEqual(recipients.slice(0, 50));
    const sent = recipients
      .slice(0, 50)
      .map((r): SendRecipient => ({ ...r, status: 'sent', messageId: `m${r.index}` }));
    await repo.saveRecipients(storeId, 'sb_big', sent);
    expect(await repo.recipientsBetween(storeId, 'sb_big', 0, 59)).toEqual([...sent, ...recipients.slice(50)]);
  });

  it('reads and writes back a batch stored before packs, one item per recipient, beside a packed one', async () => {
    const clock = manualClock(Date.now());
    const repo = dynamoSendBatches(clock);
    const storeId = `st_${randomUUID()}`;
    const recipients = twoThousand().slice(0, 120);
    const old = plannedBatch(storeId, 'sb_old', recipients);
    const expiresAt = Math.floor(old.createdAt / 1000) + 365 * 24 * 3600;
    // As the service stored batches before packs: the recipients' own items, then the batch item.
    await batchPut(
      recipients.map((r) => ({
        ...keys.sendRecipient(storeId, 'sb_old', r.index),
        ...itemMeta('sendRecipient'),
        ...r,
        expiresAt,
      })),
    );
    await dynamo().send(
      new PutCommand({
        TableName: TABLE_NAME,
        Item: {
          ...keys.sendBatch(storeId, 'sb_old'),
          ...keys.sendBatchByStore(storeId, old.createdAt, 'sb_old'),
          ...itemMeta('sendBatch'),
          ...old,
          expiresAt,
        },
      }),
    );
    await repo.create(plannedBatch(storeId, 'sb_new', recipients), recipients);

    expect(await repo.get(storeId, 'sb_old')).toMatchObject({ chunks: old.chunks });
    const listed = await dynamoSendBatchList().listForStore(storeId, { limit: 10 });
    expect(listed.items.map((b) => [b.id, b.chunks])).toEqual(
      expect.arrayContaining([
        ['sb_old', old.chunks],
        ['sb_new', old.chunks],
      ]),
    );
    for (const chunk of old.chunks) {
      expect(await repo.recipientsBetween(storeId, 'sb_old', chunk.first, chunk.last)).toEqual(
        recipients.slice(chunk.first, chunk.last + 1),
      );
    }
    const rejected = recipients.filter((r) => r.status === 'rejected');
    expect(await repo.problems(storeId, 'sb_old')).toEqual(rejected);

    const chunk = old.chunks[1] as { first: number; last: number };
    const queued = (await repo.recipientsBetween(storeId, 'sb_old', chunk.first, chunk.last)).filter(
      (r) => r.status === 'queued',
    );
    const [failed, ...rest] = queued;
    const updated: SendRecipient[] = [
      { ...(failed as SendRecipient), status: 'failed', error: 'MESSAGE_REJECTED' },
      ...rest.map((r): SendRecipient => ({ ...r, status: 'sent', messageId: `m-${r.index}`, sentAt: 5 })),
    ];
    await repo.saveRecipients(storeId, 'sb_old', updated);
    // Still one item per recipient (no pack written beside them), with the batch's expiry.
    expect(await storedItems(storeId, 'sb_old', 'RPACK#')).toHaveLength(0);
    const items = await storedItems(storeId, 'sb_old', 'RCPT#');
    expect(items).toHaveLength(120);
    expect(items.every((item) => item.expiresAt === expiresAt)).toBe(true);
    const byIndex = new Map(updated.map((r) => [r.index, r]));
    expect(await repo.recipientsBetween(storeId, 'sb_old', 0, 119)).toEqual(
      recipients.map((r) => byIndex.get(r.index) ?? r),
    );
    expect(await repo.problems(storeId, 'sb_old')).toEqual(
      [...rejected, updated[0] as SendRecipient].sort((a, b) => a.index - b.index),
    );

    // A campaign's recipient outcomes, from both layouts at once.
    await repo.saveRecipients(storeId, 'sb_new', updated);
    const refs = [chunk.first, chunk.first + 1, chunk.last, 3].flatMap((index) => [
      { batchId: 'sb_old', index },
      { batchId: 'sb_new', index },
    ]);
    const outcomes = await dynamoSendOutcomes().of(storeId, refs);
    expect(outcomes.size).toBe(8);
    for (const ref of refs) {
      const expected = byIndex.get(ref.index) ?? recipients[ref.index];
      expect(outcomes.get(`${ref.batchId}#${ref.index}`), `${ref.batchId}#${ref.index}`).toEqual(expected);
    }
    expect(await dynamoSendOutcomes().of(storeId, [{ batchId: 'sb_missing', index: 0 }])).toEqual(new Map());
  });
});

describe('senders', () => {
  it('gives a domain to one store at a time', async () => {
    const senders = dynamoSenders();
    const [a, b] = [`st_${randomUUID()}`, `st_${randomUUID()}`];
    const sender = (storeId: string) => ({
      storeId,
      domain: 'one-owner.example',
      status: 'pending' as const,
      dkimTokens: [],
      createdAt: 1,
      checkedAt: 1,
    });
    const claimed = { claimed: true };
    expect(await senders.claim(sender(a), 0)).toEqual(claimed);
    expect(await senders.claim(sender(a), 0)).toEqual(claimed);
    expect(await senders.claim(sender(b), 0)).toEqual({ claimed: false });
    expect(await senders.get(b, 'one-owner.example')).toBeUndefined();
    // Releasing from the wrong store frees nothing.
    await senders.release(b, 'one-owner.example');
    expect(await senders.claim(sender(b), 0)).toEqual({ claimed: false });
    await senders.release(a, 'one-owner.example');
    expect(await senders.list(a)).toEqual([]);
    expect(await senders.claim(sender(b), 0)).toEqual(claimed);
    expect(await senders.list(b)).toEqual([sender(b)]);
  });

  it('lets another store take over a claim never verified once it lapsed, never a verified one', async () => {
    const senders = dynamoSenders();
    const [squatter, owner] = [`st_${randomUUID()}`, `st_${randomUUID()}`];
    const domain = `lapse-${randomUUID().slice(0, 8)}.example`;
    const sender = (storeId: string, createdAt: number) => ({
      storeId,
      domain,
      status: 'pending' as const,
      dkimTokens: [],
      createdAt,
      checkedAt: createdAt,
    });
    expect(await senders.claim(sender(squatter, 1_000), 0)).toEqual({ claimed: true });
    // Not lapsed yet (claimed at 1,000; lapsed means before 500): refused.
    expect(await senders.claim(sender(owner, 2_000), 500)).toEqual({ claimed: false });
    // Lapsed: taken over, and the squatter's record is gone.
    expect(await senders.claim(sender(owner, 2_000), 1_500)).toEqual({ claimed: true, lapsedFrom: squatter });
    expect(await senders.get(squatter, domain)).toBeUndefined();
    // Verified, a claim never lapses.
    await senders.markVerified(owner, domain);
    expect(await senders.claim(sender(squatter, 3_000), Number.MAX_SAFE_INTEGER)).toEqual({ claimed: false });
  });

  it("finds another store's parent or subdomain of a domain, not the store's own", async () => {
    const senders = dynamoSenders();
    const [victim, attacker] = [`st_${randomUUID()}`, `st_${randomUUID()}`];
    const base = `victim-${randomUUID().slice(0, 8)}.example`;
    const sender = (storeId: string, domain: string) => ({
      storeId,
      domain,
      status: 'pending' as const,
      dkimTokens: [],
      createdAt: 1,
      checkedAt: 1,
    });
    await senders.claim(sender(victim, `mail.${base}`), 0);
    expect(await senders.heldNearby(attacker, base, [])).toBe(`mail.${base}`);
    expect(await senders.heldNearby(victim, base, [])).toBeUndefined();
    await senders.claim(sender(victim, base), 0);
    expect(await senders.heldNearby(attacker, `news.${base}`, [base])).toBe(base);
    await senders.release(victim, `mail.${base}`);
    await senders.release(victim, base);
    expect(await senders.heldNearby(attacker, base, [])).toBeUndefined();
  });
});

describe('daily sends', () => {
  it('counts a campaign page once: the same page again answers taken and counts nothing; another page past the cap is refused', async () => {
    const daily = dynamoDailySends();
    const storeId = `st_${randomUUID()}`;
    expect(await daily.take(storeId, '20261126', 6, 10, 'cmp_a#0')).toBe(true);
    expect(await daily.take(storeId, '20261126', 6, 10, 'cmp_a#0')).toBe(true);
    // Four left: a page of four fits; then nothing does, and the refused page is not marked taken.
    expect(await daily.take(storeId, '20261126', 5, 10, 'cmp_a#1')).toBe(false);
    expect(await daily.take(storeId, '20261126', 4, 10, 'cmp_a#1')).toBe(true);
    expect(await daily.take(storeId, '20261126', 1, 10, 'cmp_a#2')).toBe(false);
    expect(await daily.take(storeId, '20261126', 1, 10)).toBe(false);
    const item = await dynamo().send(
      new GetCommand({ TableName: TABLE_NAME, Key: keys.dailySends(storeId, '20261126'), ConsistentRead: true }),
    );
    expect(item.Item?.sends).toBe(10);
  });

  it("refuses the day's first take when it is larger than the cap, as a later one: nothing counted", async () => {
    const daily = dynamoDailySends();
    const storeId = `st_${randomUUID()}`;
    const counted = async () =>
      (
        await dynamo().send(
          new GetCommand({ TableName: TABLE_NAME, Key: keys.dailySends(storeId, '20261127'), ConsistentRead: true }),
        )
      ).Item?.sends;
    // No item for the day yet: three under a cap of two, a bulk send's and a campaign page's.
    expect(await daily.take(storeId, '20261127', 3, 2)).toBe(false);
    expect(await daily.take(storeId, '20261127', 3, 2, 'cmp_b#0')).toBe(false);
    expect(await counted()).toBeUndefined();
    // The cap's two still fit, then nothing.
    expect(await daily.take(storeId, '20261127', 2, 2, 'cmp_b#1')).toBe(true);
    expect(await daily.take(storeId, '20261127', 1, 2)).toBe(false);
    expect(await counted()).toBe(2);
  });
});
