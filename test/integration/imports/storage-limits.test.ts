/**
 * Lines and error lists that run into DynamoDB's 400 KB item limit, run through the real adapters (`runImport` called
 * directly, pollers paused). A bad line should fail on its own and the job should still finish and announce it.
 *
 * Both cases once made `runImport` throw `ValidationException: Item size has exceeded the maximum allowed size`, so
 * the job stayed `running` forever with no `bulk_operations/finish`: a contact DynamoDB refuses now fails its line
 * alone, and reasons are kept to 200 characters so a thousand of them fit in the job.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamoCustomerRepository } from '#shared/adapters/dynamodb/customer.repository.ts';
import { runImport } from '#shared/domain/imports/run-import.ts';
import { importDeps, runImportDeps } from '#shared/wiring/imports.ts';
import { newStore } from '#test/support/local.ts';
import { customer, jsonl, seedJob, sleep, uid } from './support.ts';

let runtime: LocalRuntime;

beforeAll(async () => {
  runtime = await startLocalRuntime({ logLevel: 'ERROR' });
  runtime.setPollersPaused(true);
  await sleep(1_200);
});

afterAll(async () => {
  await runtime?.stop();
});

const run = (storeId: string, jobId: string) => runImport(runImportDeps(), { storeId, jobId }, () => 900_000);

describe('storage limits', () => {
  it('a line too large to store as a contact fails alone; the job finishes', async () => {
    const store = await newStore('Import huge line');
    const p = uid('huge');
    // 450 KB of an extra field (kept in the contact's attributes): valid JSON, far below the 4 MiB file limit.
    const job = await seedJob(
      store.storeId,
      jsonl([customer(`${p}-1`), customer(`${p}-2`, { notes: 'x'.repeat(450_000) }), customer(`${p}-3`)]),
    );
    expect(await run(store.storeId, job.id)).toBe('finished');
    expect(await importDeps().jobs.get(store.storeId, job.id)).toMatchObject({
      status: 'finished',
      result: 'SUCCESS',
      counts: { lines: 3, imported: 2, failed: 1 },
      errors: [{ line: 2 }],
    });
    expect(await dynamoCustomerRepository().get(store.storeId, `${p}-3`)).toBeDefined();
  });

  it('a line over the maximum length is skipped to the next newline with its reason; the next line imports', async () => {
    const store = await newStore('Import endless line');
    const p = uid('endless');
    const endless = 'x'.repeat(2 * 1024 * 1024);
    const job = await seedJob(
      store.storeId,
      `${JSON.stringify(customer(`${p}-1`))}\n${endless}\n${JSON.stringify(customer(`${p}-2`))}\n`,
    );
    expect(await run(store.storeId, job.id)).toBe('finished');
    expect(await importDeps().jobs.get(store.storeId, job.id)).toMatchObject({
      status: 'finished',
      result: 'SUCCESS',
      counts: { lines: 3, imported: 2, failed: 1 },
      errors: [{ line: 2, reason: `line is ${endless.length} bytes, over the 1048576-byte maximum; skipped` }],
    });
    expect(await dynamoCustomerRepository().get(store.storeId, `${p}-2`)).toBeDefined();
  });

  it('1,000 recorded errors with long reasons still fit in the job; the job finishes', async () => {
    const store = await newStore('Import long reasons');
    // Five failing fields whose messages are long: a 435-character reason per line; 1,000 of them exceed 400 KB.
    const bad = (n: number) => ({
      id: `bad-${n}`,
      email: `bad-${n}@example.com`,
      created_at: 'soon',
      email_marketing_consent: { state: 'maybe', updatedAt: 'later' },
      sms_marketing_consent: { state: 'maybe', updatedAt: 'later' },
    });
    const lines: Record<string, unknown>[] = [customer(uid('good'))];
    for (let n = 0; n < 1200; n++) lines.push(bad(n));
    const job = await seedJob(store.storeId, jsonl(lines));
    expect(await run(store.storeId, job.id)).toBe('finished');
    const done = await importDeps().jobs.get(store.storeId, job.id);
    expect(done).toMatchObject({
      status: 'finished',
      result: 'SUCCESS',
      counts: { lines: 1201, imported: 1, failed: 1200 },
    });
    expect(done?.errors.length).toBeGreaterThan(0);
  });

  it('keeps the first 1,000 line errors and counts them all', async () => {
    const store = await newStore('Import many errors');
    const lines: Record<string, unknown>[] = [customer(uid('good'))];
    for (let n = 0; n < 1200; n++) lines.push({ id: `no-email-${n}`, created_at: 1_700_000_000 });
    const job = await seedJob(store.storeId, jsonl(lines));
    expect(await run(store.storeId, job.id)).toBe('finished');
    const done = await importDeps().jobs.get(store.storeId, job.id);
    expect(done).toMatchObject({ result: 'SUCCESS', counts: { lines: 1201, imported: 1, created: 1, failed: 1200 } });
    expect(done?.errors.map((e) => e.line)).toEqual(Array.from({ length: 1000 }, (_, i) => i + 2));
    expect(done?.errors[0]?.reason).toBe('email is required');
  });

  it('800 such errors: the job finishes with all of them listed, each reason cut to 200 characters', async () => {
    const store = await newStore('Import long reasons control');
    const lines: Record<string, unknown>[] = [customer(uid('good'))];
    for (let n = 0; n < 800; n++) {
      lines.push({
        id: `bad-${n}`,
        email: `bad-${n}@example.com`,
        created_at: 'soon',
        email_marketing_consent: { state: 'maybe', updatedAt: 'later' },
        sms_marketing_consent: { state: 'maybe', updatedAt: 'later' },
      });
    }
    const job = await seedJob(store.storeId, jsonl(lines));
    expect(await run(store.storeId, job.id)).toBe('finished');
    const done = await importDeps().jobs.get(store.storeId, job.id);
    expect(done).toMatchObject({ result: 'SUCCESS', counts: { lines: 801, imported: 1, failed: 800 } });
    expect(done?.errors).toHaveLength(800);
    expect(done?.errors[0]?.reason).toHaveLength(200);
    expect(done?.errors[0]?.reason.endsWith('…')).toBe(true);
  });
});
