/**
 * What accepting a 2,000-recipient send costs the table (noisy neighbours): the recipients are stored packed,
 * one item per planned chunk, so the acceptance is a few batch calls instead of one write per recipient.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamodbCallsDuring, newStore, type TestStore } from '#test/support/local.ts';
import { bulk, readBatch, recipients, registerDomain, send } from '#test/support/sending.ts';

let runtime: LocalRuntime;
let store: TestStore;
const DOMAIN = 'packed-shop.example';

beforeAll(async () => {
  // No pollers: the batch stays queued, so the calls counted are the acceptance's alone.
  runtime = await startLocalRuntime({ pollers: false, logLevel: 'ERROR' });
  store = await newStore('Packed sender');
  await registerDomain(runtime, store, DOMAIN);
});
afterAll(async () => {
  await runtime?.stop();
});

describe('storing a 2,000-recipient send', () => {
  it('costs a few batch calls: 40 packed items written, the suppressions read 100 at a time', async () => {
    const list = recipients(2000, 'packed.example', (i) => ({ firstName: `P${i}` }));
    // Two rejected: an invalid address and a repeated one.
    list[5] = { address: { email: 'not an address', name: 'X' } };
    list[1500] = { address: { email: 'r3@packed.example', name: 'Y' } };
    let answer: Awaited<ReturnType<typeof send>> | undefined;
    // Sent at the start of a second: the API's rate limiter claims its token for the second the request came in, and
    // claims again when that claim's answer comes back after the second ended (one `UpdateItem` more, as a CI run
    // once counted, which is not the acceptance's cost).
    await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 5));
    const calls = await dynamodbCallsDuring(runtime, async () => {
      answer = await send(runtime, store, bulk(DOMAIN, { recipients: list }));
    });
    expect(answer?.status).toBe(200);
    expect(answer?.body).toMatchObject({ totalAccepted: 1998, totalRejected: 2 });
    // Before packs: 80 BatchWriteItem calls (2,000 recipient items). Now 40 packs, 25 a call; 20 BatchGetItem calls
    // read the 1,998 suppressions (plus one of the request's own reads); the rest is the sender, budgets and batch.
    expect(calls).toEqual({ BatchGetItem: 21, BatchWriteItem: 2, GetItem: 2, PutItem: 2, UpdateItem: 3 });

    const read = await readBatch(runtime, store, String(answer?.body.id));
    expect(read.body).toMatchObject({
      status: 'queued',
      totalAccepted: 1998,
      totalRejected: 2,
      chunks: 40,
      rejections: [
        { index: 5, email: 'not an address', reason: 'invalid_address' },
        { index: 1500, email: 'r3@packed.example', reason: 'duplicate' },
      ],
      failures: [],
    });
  }, 60_000);
});
