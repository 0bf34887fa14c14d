/**
 * The import writes each batch of lines together (`shared/wiring/imports.ts`): the contacts and the store's
 * webhook subscription are read in one `BatchGetItem` per batch, the search's lookup items put in one
 * `BatchWriteItem`, and the export's contact counters added once per bucket when the batch ends. Before, a line cost
 * ten calls: a `GetItem` of its contact and one of the subscription, a `BatchWriteItem` of its lookups and five
 * counter `ADD`s. The counters must still say exactly how many contacts were created in each bucket.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { bucketsOf } from '#shared/domain/contacts/contact-counts.ts';
import { countersOf } from '#test/integration/export/support.ts';
import { dynamodbCallsDuring, newStore } from '#test/support/local.ts';
import { customer, importAndWait, jsonl, uid } from './support.ts';

let runtime: LocalRuntime;
beforeAll(async () => {
  runtime = await startLocalRuntime({ logLevel: 'ERROR' });
});
afterAll(async () => {
  await runtime?.stop();
});

const LINES = 200;

describe('a batch import’s writes', () => {
  it('reads, puts lookups and adds counters per batch of lines, and the counters hold every contact created', async () => {
    const store = await newStore('Batched import');
    // Seven minutes apart, as a store's history spreads: distinct second and minute buckets, shared hours and days.
    const createdAt = Array.from({ length: LINES }, (_, i) => 1_700_000_000 + i * 420);
    const file = jsonl(
      createdAt.map((at, i) =>
        customer(uid(`batched${i}`), { created_at: at, phone: `+3161234${String(i).padStart(4, '0')}` }),
      ),
    );
    let job: Awaited<ReturnType<typeof importAndWait>> | undefined;
    const calls = await dynamodbCallsDuring(runtime, async () => {
      job = await importAndWait(runtime, store.apiKey, file);
    });
    expect(job?.result).toBe('SUCCESS');
    expect(job?.counts).toEqual({ lines: LINES, imported: LINES, created: LINES, failed: 0 });

    const expected: Record<string, number> = {};
    for (const at of createdAt) {
      for (const { level, start } of bucketsOf(at))
        expected[`${level}:${start}`] = (expected[`${level}:${start}`] ?? 0) + 1;
    }
    expect(await countersOf(store.storeId)).toEqual(expected);

    // Per line, with the job's own reads and writes and its status polls: the contact's conditional put and its
    // `customer/marketing` record stay one call each; the reads, lookups and counters are shared by a batch.
    const perLine = (op: string) => (calls[op] ?? 0) / LINES;
    expect(perLine('GetItem')).toBeLessThan(0.5);
    expect(perLine('BatchWriteItem')).toBeLessThan(0.5);
    // The two finest counter levels (seconds, minutes) are this file's own per line; hours, days and months shared.
    expect(perLine('UpdateItem')).toBeLessThan(2.6);
  });
});
