/**
 * The upload path for files too large to post: ask for an upload URL, PUT the file there, start the job. Starting
 * before the upload, starting twice (one after the other or at once), and jobs that are unknown or another store's are
 * refused; the start counts against the store's one import every 10 seconds (spec "Limits").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamoCustomerRepository } from '#shared/adapters/dynamodb/customer.repository.ts';
import { MAX_UPLOAD_BYTES } from '#shared/domain/imports/model.ts';
import { newStore, type TestStore } from '#test/support/local.ts';
import {
  type Answer,
  awaitFinished,
  call,
  customer,
  getJob,
  type JobView,
  jobIdOf,
  jsonl,
  postImport,
  sleep,
  storedJobs,
  uid,
} from './support.ts';

let runtime: LocalRuntime;
const customers = dynamoCustomerRepository();

beforeAll(async () => {
  runtime = await startLocalRuntime({ logLevel: 'ERROR' });
});

afterAll(async () => {
  await runtime?.stop();
});

interface UploadView extends JobView {
  readonly uploadUrl: string;
  readonly uploadMethod: string;
  readonly expiresInSeconds: number;
}

const requestUpload = (
  store: TestStore,
  append: string | null = 'update',
  size: string | null = '1000',
): Promise<Answer> => {
  const query = [append === null ? '' : `append=${append}`, size === null ? '' : `size=${size}`].filter(Boolean);
  return call(runtime, store.apiKey, 'POST', `/api/v1/batch/customers/uploads?${query.join('&')}`);
};

/** An upload URL for `content` (its size declared). */
const uploadOf = async (store: TestStore, content: string): Promise<UploadView> => {
  const answer = await requestUpload(store, 'update', String(Buffer.byteLength(content)));
  jobIdOf(answer);
  return answer.body.data as UploadView;
};

const start = (store: TestStore, jobId: string): Promise<Answer> =>
  call(runtime, store.apiKey, 'POST', `/api/v1/batch/customers/uploads/${encodeURIComponent(jobId)}/start`);

const put = async (url: string, content: string): Promise<number> => {
  const response = await fetch(url, { method: 'PUT', body: content });
  await response.arrayBuffer();
  return response.status;
};

const statusOf = async (store: TestStore, jobId: string) =>
  ((await getJob(runtime, store.apiKey, jobId)).body.data as JobView).status;

describe('the upload path', () => {
  it('imports a file PUT to the upload URL once started, and refuses an early or a second start', async () => {
    const store = await newStore('Import upload');
    const p = uid('up');
    const lines: (Record<string, unknown> | string)[] = [];
    for (let n = 1; n <= 120; n++) lines.push(customer(`${p}-${n}`, { city: `City ${n}` }));
    lines[59] = '{broken';
    const content = jsonl(lines);
    const upload = await uploadOf(store, content);
    expect(upload).toMatchObject({
      endpoint: 'customers',
      status: 'uploading',
      uploadMethod: 'PUT',
      counts: { lines: 0, imported: 0, created: 0, failed: 0 },
      errors: [],
    });
    expect(upload.uploadUrl).toMatch(/^https?:\/\//);
    expect(upload.expiresInSeconds).toBeGreaterThan(0);
    expect(await statusOf(store, upload.jobId)).toBe('uploading');

    // Started before any upload: 400, and the job still waits for its file.
    const early = await start(store, upload.jobId);
    expect(early.status).toBe(400);
    expect(early.body).toMatchObject({ state: 400, success: false, message: expect.stringMatching(/upload/) });
    expect(await statusOf(store, upload.jobId)).toBe('uploading');

    expect(await put(upload.uploadUrl, content)).toBe(200);

    const started = await start(store, upload.jobId);
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ state: 200, success: true, data: { jobId: upload.jobId, status: 'queued' } });

    const again = await start(store, upload.jobId);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ state: 409, success: false });

    const job = await awaitFinished(runtime, store.apiKey, upload.jobId);
    expect(job).toMatchObject({
      status: 'finished',
      result: 'SUCCESS',
      counts: { lines: 120, imported: 119, created: 119, failed: 1 },
      errors: [{ line: 60, reason: expect.stringMatching(/JSON/) }],
    });
    expect(job.startedAt).toBeGreaterThanOrEqual(job.createdAt);
    expect(await customers.get(store.storeId, `${p}-120`)).toMatchObject({ city: 'City 120' });

    // A finished job cannot be started again either.
    expect((await start(store, upload.jobId)).status).toBe(409);
  });

  it('queues a job started by two requests at once only once: the other answers 409 (or 429), never 500', async () => {
    const store = await newStore('Import upload race');
    const content = jsonl([customer(uid('race'))]);
    const upload = await uploadOf(store, content);
    expect(await put(upload.uploadUrl, content)).toBe(200);

    const answers = await Promise.all([start(store, upload.jobId), start(store, upload.jobId)]);
    const started = answers.filter((answer) => answer.status === 200);
    const refused = answers.filter((answer) => answer.status !== 200);
    expect(started, JSON.stringify(answers.map((answer) => answer.body))).toHaveLength(1);
    expect(started[0]?.body).toMatchObject({ data: { jobId: upload.jobId, status: 'queued' } });
    expect([409, 429]).toContain(refused[0]?.status);
    expect(refused[0]?.body).toMatchObject({ state: refused[0]?.status, success: false, message: expect.any(String) });

    expect(await awaitFinished(runtime, store.apiKey, upload.jobId)).toMatchObject({
      result: 'SUCCESS',
      counts: { lines: 1, imported: 1, created: 1, failed: 0 },
    });
    // A start once the job runs or has finished is still a 409, as for any repeated start.
    expect((await start(store, upload.jobId)).status).toBe(409);
  });

  it('answers 404 for an unknown job and for another store’s, for start and for GET', async () => {
    const [owner, stranger] = [await newStore('Import owner'), await newStore('Import stranger')];
    const content = jsonl([customer(uid('own'))]);
    const upload = await uploadOf(owner, content);
    expect(await put(upload.uploadUrl, content)).toBe(200);

    for (const [who, jobId] of [
      [owner, 'im_doesnotexist00000000'],
      [stranger, upload.jobId],
    ] as const) {
      const started = await start(who, jobId);
      expect(started.status, `start ${jobId}`).toBe(404);
      expect(started.body).toMatchObject({ state: 404, success: false });
      const got = await getJob(runtime, who.apiKey, jobId);
      expect(got.status, `GET ${jobId}`).toBe(404);
      expect(got.body).toMatchObject({ state: 404, success: false });
      expect(got.body.data).toBeUndefined();
    }

    // The stranger's attempt changed nothing: the owner can still start it.
    expect(await statusOf(owner, upload.jobId)).toBe('uploading');
    expect((await start(owner, upload.jobId)).status).toBe(200);
    expect(await awaitFinished(runtime, owner.apiKey, upload.jobId)).toMatchObject({
      result: 'SUCCESS',
      counts: { lines: 1, imported: 1 },
    });
  });

  it('refuses an upload URL without append=update or without a key, creating no job', async () => {
    const store = await newStore('Import upload refused');
    // Paced under the store's 2 upload URLs a second (the limit is counted before the query is read).
    const paced = async (append: string | null, size: string | null) => {
      await sleep(550);
      return requestUpload(store, append, size);
    };
    for (const append of ['insert', null] as const) {
      const answer = await paced(append, '1000');
      expect(answer.status, String(append)).toBe(400);
      expect(answer.body).toMatchObject({ state: 400, success: false, message: expect.stringMatching(/append/) });
    }
    for (const size of [null, '0', '-5', '1.5', 'big', String(MAX_UPLOAD_BYTES + 1)]) {
      const answer = await paced('update', size);
      expect(answer.status, String(size)).toBe(400);
      expect(answer.body.message).toBe(
        `size must be the file's size in bytes, an integer from 1 to ${MAX_UPLOAD_BYTES}`,
      );
    }
    const anonymous = await call(runtime, null, 'POST', '/api/v1/batch/customers/uploads?append=update&size=10');
    expect(anonymous.status).toBe(401);
    expect(await storedJobs(store.storeId)).toEqual([]);
  });

  it('counts the start against the store’s import slot: 429 right after a direct import, the job still waiting', async () => {
    const store = await newStore('Import upload slot');
    const content = jsonl([customer(uid('slot'))]);
    const upload = await uploadOf(store, content);
    expect(await put(upload.uploadUrl, content)).toBe(200);
    jobIdOf(await postImport(runtime, jsonl([customer(uid('direct'))]), { apiKey: store.apiKey }));

    const refused = await start(store, upload.jobId);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ state: 429, success: false });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await statusOf(store, upload.jobId)).toBe('uploading');
  });

  it('signs the declared size into the URL, and refuses to start a stored file larger than declared', async () => {
    const store = await newStore('Import upload size');
    const upload = await uploadOf(store, 'x'.repeat(10));
    // S3 checks the signed Content-Length; the local S3 checks no signature, so the start checks the stored size too.
    expect(new URL(upload.uploadUrl).searchParams.get('X-Amz-SignedHeaders')?.split(';')).toContain('content-length');
    expect(await put(upload.uploadUrl, jsonl([customer(uid('big')), customer(uid('big'))]))).toBe(200);
    const refused = await start(store, upload.jobId);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/^dataFile is \d+ bytes; the upload URL was for at most 10$/);
    expect(await statusOf(store, upload.jobId)).toBe('uploading');
  });

  it('rate-limits upload URLs per store (429 with Retry-After)', async () => {
    const store = await newStore('Import upload flood');
    const answers = await Promise.all(Array.from({ length: 8 }, () => requestUpload(store)));
    const limited = answers.filter((answer) => answer.status === 429);
    // 2 a second: eight at once span at most two windows.
    expect(answers.filter((answer) => answer.status === 200).length).toBeLessThanOrEqual(4);
    expect(limited.length).toBeGreaterThanOrEqual(4);
    expect(Number(limited[0]?.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
