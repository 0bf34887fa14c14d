/**
 * Resuming through the real adapters (local S3 and DynamoDB): the file port splits a large multi-byte file into lines
 * with exact byte ends and reads on from any of them, including the very end of the file, which is where a run that
 * ran short of time right after the file's last batch resumes. The queue pollers are paused so that the runs here are
 * the only ones.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamoCustomerRepository } from '#shared/adapters/dynamodb/customer.repository.ts';
import { s3ImportFiles } from '#shared/adapters/s3/import-files.ts';
import { runImport } from '#shared/domain/imports/run-import.ts';
import { importDeps, runImportDeps } from '#shared/wiring/imports.ts';
import { newStore } from '#test/support/local.ts';
import { customer, jsonl, seedJob, sleep, uid } from './support.ts';

let runtime: LocalRuntime;

beforeAll(async () => {
  runtime = await startLocalRuntime({ logLevel: 'ERROR' });
  runtime.setPollersPaused(true);
  // A receive already waiting (1 s long poll) returns before anything is queued.
  await sleep(1_200);
});

afterAll(async () => {
  await runtime?.stop();
});

describe('the S3 file port', () => {
  it('splits a large multi-byte file into its lines with exact byte ends, and resumes at any of them', async () => {
    const files = s3ImportFiles();
    const key = `${uid('st')}/${uid('im')}.jsonl`;
    // ~900 KB: several stream chunks, so lines and multi-byte characters straddle chunk boundaries.
    const texts = Array.from({ length: 6000 }, (_, i) =>
      i % 11 === 0 ? '' : JSON.stringify({ id: `c-${i}`, note: `${'é✓'.repeat(i % 37)}-${i}` }),
    );
    const eols = texts.map((_, i) => (i === texts.length - 1 ? '' : i % 4 === 0 ? '\r\n' : '\n'));
    const bytes = Buffer.from(texts.map((text, i) => text + eols[i]).join(''), 'utf8');
    const ends: number[] = [];
    let offset = 0;
    for (const [i, text] of texts.entries()) {
      offset += Buffer.byteLength(text + eols[i], 'utf8');
      ends.push(offset);
    }
    await files.put(key, bytes);

    const read = async (from: number) => {
      const got: { text: string; end: number }[] = [];
      for await (const line of files.lines(key, from)) if ('text' in line) got.push(line);
      return got;
    };
    const all = await read(0);
    expect(all.map((line) => line.text)).toEqual(texts);
    expect(all.map((line) => line.end)).toEqual(ends);

    for (const after of [0, 1234, 4321, texts.length - 2]) {
      const rest = await read(ends[after] ?? 0);
      expect(rest.map((line) => line.text)).toEqual(texts.slice(after + 1));
      expect(rest.map((line) => line.end)).toEqual(ends.slice(after + 1));
    }
    // The end of the file: nothing more to read (and no error).
    expect(await read(bytes.length)).toEqual([]);
  });
});

describe('a run that runs short of time right after the last line', () => {
  it('continues, and the next run resumes at the end of the file and finishes', async () => {
    const store = await newStore('Import resume at end');
    const p = uid('end');
    // 50 lines: two full batches of 25, the second ending with the file.
    const ids = Array.from({ length: 50 }, (_, i) => `${p}-${i + 1}`);
    const content = Buffer.from(jsonl(ids.map((id) => customer(id))), 'utf8');
    const deps = importDeps();
    const job = await seedJob(store.storeId, content);
    const message = { storeId: store.storeId, jobId: job.id };

    // Time runs short from the first batch on: each batch ends the run.
    let runs = 0;
    let outcome = 'continued';
    while (outcome === 'continued' && runs < 5) {
      outcome = await runImport(runImportDeps(), message, () => 30_000);
      runs += 1;
      if (outcome === 'continued') {
        const paused = await deps.jobs.get(store.storeId, job.id);
        expect(paused?.resumeAt?.offset).toBeLessThanOrEqual(content.length);
      }
    }
    expect(outcome).toBe('finished');
    // Runs 1 and 2 each end after a batch (the second exactly at the end of the file); run 3 finds nothing left.
    expect(runs).toBe(3);
    const done = await deps.jobs.get(store.storeId, job.id);
    expect(done).toMatchObject({
      status: 'finished',
      result: 'SUCCESS',
      counts: { lines: 50, imported: 50, created: 50, failed: 0 },
      errors: [],
    });
    const contacts = dynamoCustomerRepository();
    expect(await contacts.get(store.storeId, ids[49] ?? '')).toBeDefined();
  });
});
