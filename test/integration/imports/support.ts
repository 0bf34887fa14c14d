/**
 * Helpers of the batch import tests (spec "Contact batch import"): calls to the import routes with real multipart
 * bodies, polling a job until it finishes, JSONL lines, and probes of what a store holds (jobs, files, contacts).
 */
import { createHmac } from 'node:crypto';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { IMPORTS_BUCKET } from '#local/resources.ts';
import type { LocalRuntime } from '#local/runtime.ts';
import { dynamo } from '#shared/adapters/aws-clients.ts';
import { tableName } from '#shared/adapters/dynamodb/table.ts';
import { ScanCommand } from '#shared/adapters/dynamodb-client.ts';
import type { ContactRecord } from '#shared/domain/contacts/model.ts';
import type { ImportJob } from '#shared/domain/imports/model.ts';
import { processWide } from '#shared/lazy.ts';
import { importDeps } from '#shared/wiring/imports.ts';
import { eventually } from '#test/support/local.ts';

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Record<string, unknown>;
}

export interface JobView {
  readonly jobId: string;
  readonly endpoint: string;
  readonly status: 'uploading' | 'queued' | 'running' | 'finished';
  readonly result?: 'SUCCESS' | 'FAIL';
  readonly counts: { lines: number; imported: number; created: number; failed: number };
  readonly errors: { line: number; reason: string }[];
  readonly createdAt: number;
  readonly startedAt?: number;
  readonly finishedAt?: number;
}

const answerOf = async (response: Response): Promise<Answer> => {
  const text = await response.text();
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = { unparsed: text };
  }
  return { status: response.status, headers: response.headers, body };
};

export interface PostImportOptions {
  /** The `append` query value; `null` leaves the parameter out. Default `update`. */
  readonly append?: string | null;
  /** The form field carrying the file. Default `dataFile`. */
  readonly field?: string;
  readonly filename?: string;
  /** The key header; `null` leaves it out. */
  readonly apiKey: string | null;
}

const appendQuery = (append: string | null | undefined) =>
  append === null ? '' : `?append=${encodeURIComponent(append ?? 'update')}`;

const keyHeader = (apiKey: string | null): Record<string, string> =>
  apiKey === null ? {} : { 'x-service-access-token': apiKey };

/** `POST /api/v1/batch/customers?append=update` with `content` as the multipart file (Node's FormData + Blob). */
export const postImport = async (
  runtime: LocalRuntime,
  content: string | Buffer,
  options: PostImportOptions,
): Promise<Answer> => {
  const form = new FormData();
  const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  form.append(
    options.field ?? 'dataFile',
    new Blob([new Uint8Array(bytes)], { type: 'application/x-ndjson' }),
    options.filename ?? 'customers.jsonl',
  );
  const response = await fetch(`${runtime.urls.main}/api/v1/batch/customers${appendQuery(options.append)}`, {
    method: 'POST',
    headers: keyHeader(options.apiKey),
    body: form,
  });
  return answerOf(response);
};

/** Any call to the main host with the store key; `body` is sent as is with `contentType` when given. */
export const call = async (
  runtime: LocalRuntime,
  apiKey: string | null,
  method: 'GET' | 'POST' | 'PUT',
  path: string,
  body?: { contentType: string; data: string | FormData },
): Promise<Answer> => {
  const headers: Record<string, string> = keyHeader(apiKey);
  if (body && !(body.data instanceof FormData)) headers['content-type'] = body.contentType;
  const response = await fetch(`${runtime.urls.main}${path}`, {
    method,
    headers,
    ...(body ? { body: body.data } : {}),
  });
  return answerOf(response);
};

export const getJob = (runtime: LocalRuntime, apiKey: string, jobId: string): Promise<Answer> =>
  call(runtime, apiKey, 'GET', `/api/v1/batch/${encodeURIComponent(jobId)}`);

/** Polls `GET /api/v1/batch/{jobId}` until the job is `finished`, and returns its view. */
export const awaitFinished = (
  runtime: LocalRuntime,
  apiKey: string,
  jobId: string,
  timeoutMs = 30_000,
): Promise<JobView> =>
  eventually(
    `import ${jobId} to finish`,
    async () => {
      const answer = await getJob(runtime, apiKey, jobId);
      if (answer.status !== 200) throw new Error(`GET job ${jobId}: ${answer.status} ${JSON.stringify(answer.body)}`);
      const job = answer.body.data as JobView;
      return job.status === 'finished' ? job : undefined;
    },
    timeoutMs,
  );

/** The job id of a `200` import answer, asserting the answer's shape on the way. */
export const jobIdOf = (answer: Answer): string => {
  if (answer.status !== 200 || answer.body.success !== true || answer.body.state !== 200) {
    throw new Error(`expected an accepted import, got ${answer.status} ${JSON.stringify(answer.body)}`);
  }
  return (answer.body.data as JobView).jobId;
};

/** Imports `content` and waits for the job to finish. */
export const importAndWait = async (
  runtime: LocalRuntime,
  apiKey: string,
  content: string | Buffer,
  timeoutMs?: number,
): Promise<JobView> => {
  const jobId = jobIdOf(await postImport(runtime, content, { apiKey }));
  return awaitFinished(runtime, apiKey, jobId, timeoutMs);
};

let sequence = 0;
/** An id unique within the file. */
export const uid = (prefix: string): string => `${prefix}-${++sequence}-${Math.random().toString(36).slice(2, 8)}`;

/** A valid general `customers` payload for `id`, `overrides` on top. */
export const customer = (id: string, overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  id,
  email: `${id}@example.com`,
  created_at: 1_700_000_000,
  first_name: 'Ada',
  ...overrides,
});

/** JSONL: one JSON object per line (strings are taken as they are, for lines that must be broken). */
export const jsonl = (lines: readonly (Record<string, unknown> | string)[], eol = '\n'): string =>
  lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join(eol) + eol;

/** The spec's webhook signature: Base64 HMAC-SHA256 of the raw body, keyed with the store's security key. */
export const hmac = (raw: Buffer, key: string): string => createHmac('sha256', key).update(raw).digest('base64');

/** Every import job item the store has in the table (a scan: test tables are small). */
export const storedJobs = async (storeId: string): Promise<Record<string, unknown>[]> => {
  const items: Record<string, unknown>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(
      new ScanCommand({
        TableName: tableName(),
        FilterExpression: 'begins_with(pk, :prefix)',
        ExpressionAttributeValues: { ':prefix': `STORE#${storeId}#IMPORT#` },
        ConsistentRead: true,
        ExclusiveStartKey,
      }),
    );
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
};

// Made on first use after each runtime start (the S3 endpoint is the runtime's).
const s3Client = processWide(() => new S3Client({ forcePathStyle: true }));
/** The keys of the store's files in the imports bucket. */
export const storedFiles = async (storeId: string): Promise<string[]> => {
  const { Contents = [] } = await s3Client().send(
    new ListObjectsV2Command({ Bucket: IMPORTS_BUCKET, Prefix: `${storeId}/` }),
  );
  return Contents.map((object) => object.Key ?? '');
};

/** Minimum gap between two contact export calls of one store (the limit is one call per store per second). */
const EXPORT_GAP_MS = 1050;
const lastExport = new Map<string, number>();

/**
 * Every contact of the store through the contact export (`GET {front}/api/v1/audience`, one page of up to 5,000),
 * paced to the export's one call per store per second. The page's `data` is read fresh on every call; its
 * `total_count` is counted at most once a minute per store and query, so it is not used to count here.
 */
export const exportedContacts = async (runtime: LocalRuntime, apiKey: string): Promise<ContactRecord[]> => {
  await sleep((lastExport.get(apiKey) ?? 0) + EXPORT_GAP_MS - Date.now());
  lastExport.set(apiKey, Date.now());
  const response = await fetch(`${runtime.urls.front}/api/v1/audience?page_size=5000`, {
    headers: { 'x-service-access-token': apiKey },
  });
  const answer = await answerOf(response);
  if (answer.status !== 200) throw new Error(`export: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body.data as ContactRecord[];
};

/** How many contacts the store has, by the export, with each `origin_id` checked to appear once. */
export const contactCount = async (runtime: LocalRuntime, apiKey: string): Promise<number> => {
  const contacts = await exportedContacts(runtime, apiKey);
  const origins = new Set(contacts.map((contact) => contact.origin_id));
  if (origins.size !== contacts.length) throw new Error(`duplicate contacts: ${contacts.length - origins.size}`);
  return contacts.length;
};

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)));

/**
 * A queued job with its file, written through the real adapters but not queued: for tests that call `runImport`
 * themselves (with the pollers paused, so no worker runs it too).
 */
export const seedJob = async (storeId: string, content: string | Buffer): Promise<ImportJob> => {
  const deps = importDeps();
  const id = `im_${uid('seed').replace(/[^A-Za-z0-9]/g, '')}`;
  const now = Date.now();
  const job: ImportJob = {
    storeId,
    id,
    endpoint: 'customers',
    storeType: 'direct',
    status: 'queued',
    fileKey: `${storeId}/${id}.jsonl`,
    counts: { lines: 0, imported: 0, created: 0, failed: 0 },
    errors: [],
    createdAt: now,
    updatedAt: now,
    revision: 1,
  };
  await deps.files.put(job.fileKey, typeof content === 'string' ? Buffer.from(content, 'utf8') : content);
  await deps.jobs.save(job, 0);
  return job;
};
