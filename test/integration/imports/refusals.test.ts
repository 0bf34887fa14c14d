/**
 * What the import route refuses (spec "Contact batch import", "Authentication", "Limits"), each answered in the batch
 * import shape `{message, state, success: false, timestamp}` with the HTTP status equal to `state`, and each leaving
 * nothing behind: no job, no file, no contact, and the store's import slot still free. Then the rate limit: one import
 * per store about every 10 seconds, 429 with `retry-after` in between, accepted again once the slot frees.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { newStore } from '#test/support/local.ts';
import {
  type Answer,
  awaitFinished,
  call,
  contactCount,
  customer,
  jobIdOf,
  jsonl,
  postImport,
  sleep,
  storedFiles,
  storedJobs,
  uid,
} from './support.ts';

let runtime: LocalRuntime;

beforeAll(async () => {
  runtime = await startLocalRuntime({ logLevel: 'ERROR' });
});

afterAll(async () => {
  await runtime?.stop();
});

const MIB = 1024 * 1024;

/** A refusal in the batch import shape, with a readable message matching `message`. */
const expectRefusal = (answer: Answer, status: number, message: RegExp, from: number) => {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  expect(answer.body).toEqual({
    message: expect.stringMatching(message),
    state: status,
    success: false,
    timestamp: expect.any(Number),
  });
  expect(answer.body.timestamp).toBeGreaterThanOrEqual(from);
  expect(answer.body.timestamp).toBeLessThanOrEqual(Date.now());
};

/** A valid file of `count` customers. */
const goodFile = (count = 2) => jsonl(Array.from({ length: count }, (_, i) => customer(uid(`ok${i}`))));

describe('refused imports', () => {
  it('answer 400, 401 or 413, and store nothing', async () => {
    const store = await newStore('Import refusals');
    const from = Date.now();
    const key = store.apiKey;
    const refusals: [string, () => Promise<Answer>, number, RegExp][] = [
      ['append=insert', () => postImport(runtime, goodFile(), { apiKey: key, append: 'insert' }), 400, /append/],
      ['no append', () => postImport(runtime, goodFile(), { apiKey: key, append: null }), 400, /append/],
      ['empty append', () => postImport(runtime, goodFile(), { apiKey: key, append: '' }), 400, /append/],
      ['file in another field', () => postImport(runtime, goodFile(), { apiKey: key, field: 'file' }), 400, /dataFile/],
      ['empty file', () => postImport(runtime, '', { apiKey: key }), 400, /dataFile/],
      ['blank file', () => postImport(runtime, '\n  \r\n\n', { apiKey: key }), 400, /dataFile/],
      [
        'CSV file',
        () => postImport(runtime, 'id,email\nc-1,a@example.com\n', { apiKey: key, filename: 'customers.csv' }),
        400,
        /JSONL/,
      ],
      [
        'one JSON array',
        () => postImport(runtime, JSON.stringify([customer('c-1'), customer('c-2')]), { apiKey: key }),
        400,
        /JSONL/,
      ],
      [
        'JSON body',
        () =>
          call(runtime, key, 'POST', '/api/v1/batch/customers?append=update', {
            contentType: 'application/json',
            data: JSON.stringify({ dataFile: goodFile() }),
          }),
        400,
        /multipart/,
      ],
      ['no body at all', () => call(runtime, key, 'POST', '/api/v1/batch/customers?append=update'), 400, /multipart/],
      [
        'file over 4 MiB',
        // Valid JSONL, just too big: 4 MiB + 1 byte of file.
        () => {
          const line = `${JSON.stringify(customer(uid('big')))}\n`;
          const file = Buffer.alloc(4 * MIB + 1, ' ');
          file.write(line, 0, 'utf8');
          return postImport(runtime, file, { apiKey: key });
        },
        413,
        /./,
      ],
      ['no key', () => postImport(runtime, goodFile(), { apiKey: null }), 401, /./],
      ['a wrong key', () => postImport(runtime, goodFile(), { apiKey: `${key}x` }), 401, /./],
      ['a made-up key', () => postImport(runtime, goodFile(), { apiKey: 'shop_notakey' }), 401, /./],
      // Authentication comes first: an anonymous caller learns nothing about the body rules.
      ['no key and a bad file', () => postImport(runtime, 'a,b\n', { apiKey: null, append: 'insert' }), 401, /./],
    ];
    for (const [what, send, status, message] of refusals) {
      const answer = await send();
      expect.soft(answer.status, `${what}: ${JSON.stringify(answer.body)}`).toBe(status);
      expectRefusal(answer, status, message, from);
    }

    expect(await storedJobs(store.storeId)).toEqual([]);
    expect(await storedFiles(store.storeId)).toEqual([]);
    expect(await contactCount(runtime, key)).toBe(0);

    // None of them took the store's import slot: a valid import is accepted at once.
    const jobId = jobIdOf(await postImport(runtime, goodFile(3), { apiKey: key }));
    expect(await awaitFinished(runtime, key, jobId)).toMatchObject({
      result: 'SUCCESS',
      counts: { lines: 3, imported: 3 },
    });
  });

  it('accepts a file just under 4 MiB', async () => {
    const store = await newStore('Import near limit');
    const id = uid('near');
    // One customer, then whitespace lines (skipped) up to 4 MiB - 64 KiB: the multipart envelope fits around it.
    const head = `${JSON.stringify(customer(id))}\n`;
    const size = 4 * MIB - 64 * 1024;
    const file = Buffer.alloc(size, ' ');
    file.write(head, 0, 'utf8');
    for (let at = head.length + 1000; at < size; at += 1000) file[at] = 0x0a;
    const answer = await postImport(runtime, file, { apiKey: store.apiKey });
    const job = await awaitFinished(runtime, store.apiKey, jobIdOf(answer));
    expect(job).toMatchObject({ result: 'SUCCESS', counts: { lines: 1, imported: 1, failed: 0 }, errors: [] });
  });
});

describe('the rate limit', () => {
  it('refuses a second import within 10 seconds with 429 and retry-after, and accepts one after', async () => {
    const store = await newStore('Import rate');
    const key = store.apiKey;
    const from = Date.now();
    const first = await postImport(runtime, goodFile(), { apiKey: key });
    const firstId = jobIdOf(first);
    const acceptedAt = Date.now();

    const second = await postImport(runtime, goodFile(), { apiKey: key });
    expectRefusal(second, 429, /10 seconds/, from);
    const retryAfter = Number(second.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(10);

    // The refused import left no job and no file beside the first one.
    await awaitFinished(runtime, key, firstId);
    expect((await storedJobs(store.storeId)).map((job) => job.id)).toEqual([firstId]);
    expect(await storedFiles(store.storeId)).toEqual([`${store.storeId}/${firstId}.jsonl`]);

    // Another store is not held back by this one.
    const other = await newStore('Import rate other');
    jobIdOf(await postImport(runtime, goodFile(), { apiKey: other.apiKey }));

    // One wait: the slot of the first import frees 10 s after it was taken.
    await sleep(acceptedAt + 10_000 + 150 - Date.now());
    const third = await postImport(runtime, goodFile(4), { apiKey: key });
    const job = await awaitFinished(runtime, key, jobIdOf(third));
    expect(job).toMatchObject({ result: 'SUCCESS', counts: { lines: 4, imported: 4 } });
  }, 30_000);
});
