/**
 * The upload path for files too large to post: ask for an upload URL, PUT the file there, start the job. Starting
 * before the upload, starting twice, and jobs that are unknown or another store's are refused; the start counts against
 * the store's one import every 10 seconds (spec "Limits").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamoCustomerRepository } from '#shared/adapters/dynamodb/customer.repository.ts';
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

const requestUpload = (store: TestStore, append: string | null = 'update'): Promise<Answer> =>
  call(runtime, store.apiKey, 'POST', `/api/v1/batch/customers/uploads${append === null ? '' : `?append=${append}`}`);

const uploadOf = async (store: TestStore): Promise<UploadView> => {
  const answer = await requestUpload(store);
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
    const upload = await uploadOf(store);
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

    const p = uid('up');
    const lines: (Record<string, unknown> | string)[] = [];
    for (let n = 1; n <= 120; n++) lines.push(customer(`${p}-${n}`, { city: `City ${n}` }));
    lines[59] = '{broken';
    expect(await put(upload.uploadUrl, jsonl(lines))).toBe(200);

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

  it('answers 404 for an unknown job and for another store’s, for start and for GET', async () => {
    const [owner, stranger] = [await newStore('Import owner'), await newStore('Import stranger')];
    const upload = await uploadOf(owner);
    expect(await put(upload.uploadUrl, jsonl([customer(uid('own'))]))).toBe(200);

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
    for (const append of ['insert', null] as const) {
      const answer = await requestUpload(store, append);
      expect(answer.status, String(append)).toBe(400);
      expect(answer.body).toMatchObject({ state: 400, success: false, message: expect.stringMatching(/append/) });
    }
    const anonymous = await call(runtime, null, 'POST', '/api/v1/batch/customers/uploads?append=update');
    expect(anonymous.status).toBe(401);
    expect(await storedJobs(store.storeId)).toEqual([]);
  });

  it('counts the start against the store’s import slot: 429 right after a direct import, the job still waiting', async () => {
    const store = await newStore('Import upload slot');
    const upload = await uploadOf(store);
    expect(await put(upload.uploadUrl, jsonl([customer(uid('slot'))]))).toBe(200);
    jobIdOf(await postImport(runtime, jsonl([customer(uid('direct'))]), { apiKey: store.apiKey }));

    const refused = await start(store, upload.jobId);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ state: 429, success: false });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await statusOf(store, upload.jobId)).toBe('uploading');
  });
});
