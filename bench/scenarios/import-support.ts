import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { type NodeGCPerformanceDetail, PerformanceObserver, constants as perfConstants } from 'node:perf_hooks';
import { pipeline } from 'node:stream/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { samplePerson } from '#bench/lib/sample-people.ts';
import { type CpuShare, formatNumber, round, sleep } from '#bench/lib/stats.ts';
import { REGION } from '#local/resources.ts';
import type { LocalRuntime } from '#local/runtime.ts';
import type { Customer } from '#shared/domain/customers/model.ts';

/**
 * 20,000 by default, so that `npm run bench` runs every scenario within 10 minutes on 2 cores; `--count import=100000`
 * is the exact case (several minutes on its own).
 */
export const DEFAULT_COUNT = 20_000;
/** The comparison import is this many times smaller. */
export const SMALL_DIVISOR = 10;
/** At most this long for one import (100,000 lines take several minutes on a small machine). */
export const FINISH_LIMIT_MS = 20 * 60_000;
export const SAMPLE_MS = 100;
export const POLL_MS = 500;
/** fauxqs's request body limit (its Fastify `bodyLimit`); real S3 takes up to 5 GB in one PUT. */
export const LOCAL_S3_BODY_LIMIT = 11 * 1_048_576;
/** Multipart upload part size, under the local limit (S3's minimum part is 5 MiB). */
export const PART_BYTES = 8 * 1_048_576;
/** Lines generated per write to the temp file. */
export const WRITE_CHUNK_LINES = 500;
/** Contacts read back and compared with their line, evenly spread over the file. */
export const CHECK_SAMPLE = 200;
export const MIB = 1_048_576;
export const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
/** Creation times: from 2022-01-01 00:00:00 UTC, one contact every 7 minutes. */
export const T0 = 1_640_995_200;

export // ---- The file -------------------------------------------------------------------------------------------------------

/** Line `i` of a file (a general `customers` payload). */
const lineAt = (i: number) => {
  const createdAt = T0 + i * 420;
  const person = samplePerson(i, createdAt);
  return {
    id: `imp-${String(i).padStart(7, '0')}`,
    email: person.email,
    created_at: createdAt,
    first_name: person.firstName,
    last_name: person.lastName,
    phone: person.phone,
    country_code: person.place.country,
    locale: person.place.locale,
    city: person.place.city,
    gender: person.gender,
    birth_date: person.birthDate,
    email_marketing_consent: person.emailConsent,
    sms_marketing_consent: person.smsConsent,
    default_address: person.address,
    tags: person.platformTags,
    tag_value: person.categoryTags.map((tag) => `${tag.category}:${tag.value}`).join(','),
  };
};

/** Writes `count` lines to `path`, respecting the stream's backpressure; returns its size in bytes. */
export const writeFile = async (path: string, count: number): Promise<number> => {
  const out = createWriteStream(path);
  for (let i = 0; i < count; ) {
    const lines: string[] = [];
    for (const end = Math.min(count, i + WRITE_CHUNK_LINES); i < end; i++) lines.push(JSON.stringify(lineAt(i)));
    if (!out.write(`${lines.join('\n')}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return (await stat(path)).size;
};

/** What the imported contact of line `i` must hold; the differing fields, empty when it matches. */
export const differences = (i: number, customer: Customer | undefined): string[] => {
  if (!customer) return ['missing'];
  const line = lineAt(i);
  const expected: Record<string, unknown> = {
    email: line.email,
    createdAt: line.created_at,
    firstName: line.first_name,
    lastName: line.last_name,
    phone: line.phone,
    countryCode: line.country_code,
    city: line.city,
    gender: line.gender,
    birthDate: line.birth_date,
    emailConsent: line.email_marketing_consent.state,
    smsConsent: line.sms_marketing_consent.state,
    platformTags: line.tags.join(','),
    categoryTags: line.tag_value,
  };
  const actual: Record<string, unknown> = {
    email: customer.email,
    createdAt: customer.createdAt,
    firstName: customer.firstName,
    lastName: customer.lastName,
    phone: customer.phone,
    countryCode: customer.countryCode,
    city: customer.city,
    gender: customer.gender,
    birthDate: customer.birthDate,
    emailConsent: customer.emailConsent?.state,
    smsConsent: customer.smsConsent?.state,
    platformTags: customer.platformTags.join(','),
    categoryTags: customer.categoryTags.map((t) => `${t.category}:${t.value}`).join(','),
  };
  return Object.keys(expected).filter((key) => expected[key] !== actual[key]);
};

export // ---- Memory ---------------------------------------------------------------------------------------------------------

/**
 * `gc()` without `--expose-gc` on the command line: the flag set at run time, then `gc` taken from a fresh context.
 * Done on first use, so importing this scenario (every bench process does) changes nothing for the others.
 */
let gcFunction: (() => void) | null | undefined;
export const exposedGc = (): (() => void) | null => {
  if (gcFunction !== undefined) return gcFunction;
  try {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as unknown;
    gcFunction = typeof gc === 'function' ? (gc as () => void) : null;
  } catch {
    gcFunction = null;
  }
  return gcFunction;
};

export const collect = async () => {
  const gc = exposedGc();
  if (!gc) return;
  // Twice, with a turn of the event loop between: the first pass frees what the second can then compact.
  gc();
  await sleep(50);
  gc();
};

export interface Memory {
  readonly rss: number;
  readonly heapUsed: number;
  readonly external: number;
}
export const readMemory = (): Memory => {
  const { rss, heapUsed, external } = process.memoryUsage();
  return { rss, heapUsed, external };
};
export const mib = (bytes: number) => round(bytes / MIB, 1);
/** `+1.5` / `-0.3`, in MiB. */
export const signed = (bytes: number) => `${bytes >= 0 ? '+' : ''}${formatNumber(mib(bytes))}`;
export const mibOf = (memory: Memory) => ({
  rss: mib(memory.rss),
  heapUsed: mib(memory.heapUsed),
  external: mib(memory.external),
});

export interface MemoryTrace {
  readonly peak: Memory;
  /** Highest heap used read right after a major (mark-compact) collection: the live heap, garbage left out. */
  readonly peakLiveHeap: number;
  readonly majorGcs: number;
  readonly samples: number;
  /** Longest time between two samples (a busy event loop delays them). */
  readonly maxGapMs: number;
  /** One sample a second: seconds since the start, MiB. */
  readonly series: { t: number; rss: number; heapUsed: number }[];
}

/** Samples the process's memory every `SAMPLE_MS` until `stop()`. */
export const memorySampler = () => {
  const start = performance.now();
  const peak = { ...readMemory() };
  const series: MemoryTrace['series'] = [];
  let samples = 0;
  let last = start;
  let maxGapMs = 0;
  let nextSeriesAt = 0;
  const sample = () => {
    const now = performance.now();
    const memory = readMemory();
    samples++;
    maxGapMs = Math.max(maxGapMs, now - last);
    last = now;
    peak.rss = Math.max(peak.rss, memory.rss);
    peak.heapUsed = Math.max(peak.heapUsed, memory.heapUsed);
    peak.external = Math.max(peak.external, memory.external);
    if (now - start >= nextSeriesAt) {
      series.push({ t: round((now - start) / 1000, 1), rss: mib(memory.rss), heapUsed: mib(memory.heapUsed) });
      nextSeriesAt += 1000;
    }
  };
  sample();
  const timer = setInterval(sample, SAMPLE_MS);
  // GC entries arrive just after their collection: the heap used then is the live heap (plus what was allocated since).
  let peakLiveHeap = 0;
  let majorGcs = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const { detail } = entry as typeof entry & { detail?: NodeGCPerformanceDetail };
      if (detail?.kind !== perfConstants.NODE_PERFORMANCE_GC_MAJOR) continue;
      majorGcs++;
      peakLiveHeap = Math.max(peakLiveHeap, process.memoryUsage().heapUsed);
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    stop(): MemoryTrace {
      clearInterval(timer);
      observer.disconnect();
      sample();
      return { peak, peakLiveHeap, majorGcs, samples, maxGapMs: round(maxGapMs), series };
    },
  };
};

export // ---- The service's API ----------------------------------------------------------------------------------------------

interface JobView {
  readonly jobId: string;
  readonly status: string;
  readonly result?: string;
  readonly counts: { lines: number; imported: number; created: number; failed: number };
  readonly errors: readonly { line: number; reason: string }[];
  readonly createdAt: number;
  readonly startedAt?: number;
  readonly finishedAt?: number;
}

export const api = async <T>(runtime: LocalRuntime, apiKey: string, method: string, path: string): Promise<T> => {
  const response = await fetch(`${runtime.urls.main}${path}`, {
    method,
    headers: { 'x-service-access-token': apiKey },
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
  return (JSON.parse(text) as { data: T }).data;
};

/** PUTs the file to the presigned URL, streamed; the status code, or the error when the connection broke. */
export const putFile = (url: string, path: string, size: number): Promise<{ status?: number; error?: string }> =>
  new Promise((resolve) => {
    const request = httpRequest(url, { method: 'PUT', headers: { 'content-length': size } }, (response) => {
      response.resume();
      response.once('end', () => resolve({ status: response.statusCode ?? 0 }));
    });
    request.once('error', (error) => resolve({ error: error.message }));
    pipeline(createReadStream(path), request).catch(() => undefined);
  });

/** Uploads the file to the upload URL's bucket and key as a multipart upload (S3 API, the local S3's endpoint). */
export const multipartUpload = async (runtime: LocalRuntime, url: string, path: string): Promise<number> => {
  // Path-style URL: /{bucket}/{key}.
  const [bucket, ...rest] = new URL(url).pathname.slice(1).split('/');
  const target = { Bucket: decodeURIComponent(bucket ?? ''), Key: rest.map(decodeURIComponent).join('/') };
  const s3 = new S3Client({ region: REGION, credentials, endpoint: runtime.urls.sqs, forcePathStyle: true });
  const file = await open(path);
  const { UploadId } = await s3.send(new CreateMultipartUploadCommand(target));
  try {
    const parts: { PartNumber: number; ETag: string }[] = [];
    const buffer = Buffer.alloc(PART_BYTES);
    for (let position = 0; ; ) {
      const { bytesRead } = await file.read(buffer, 0, PART_BYTES, position);
      if (bytesRead === 0) break;
      position += bytesRead;
      const PartNumber = parts.length + 1;
      const { ETag } = await s3.send(
        new UploadPartCommand({ ...target, UploadId, PartNumber, Body: buffer.subarray(0, bytesRead) }),
      );
      parts.push({ PartNumber, ETag: ETag ?? '' });
    }
    await s3.send(new CompleteMultipartUploadCommand({ ...target, UploadId, MultipartUpload: { Parts: parts } }));
    return parts.length;
  } catch (error) {
    await s3.send(new AbortMultipartUploadCommand({ ...target, UploadId })).catch(() => undefined);
    throw error;
  } finally {
    await file.close();
    s3.destroy();
  }
};

export // ---- One import -----------------------------------------------------------------------------------------------------

interface Run {
  readonly count: number;
  readonly fileBytes: number;
  readonly generateMs: number;
  readonly upload: { readonly via: 'presigned PUT' | 'multipart'; readonly ms: number; readonly note?: string };
  readonly job: JobView;
  readonly finished: boolean;
  /** `finishedAt − startedAt` (the job's own times), ms; when unfinished, the time waited. */
  readonly runMs: number;
  /** Start request sent → `finishedAt`, ms. */
  readonly wallMs: number;
  /** Start request sent → the worker's `startedAt`, ms. */
  readonly queueMs: number;
  readonly polls: number;
  readonly dynamodb: Record<string, number>;
  readonly cpu: CpuShare;
  readonly baseline: Memory;
  readonly trace: MemoryTrace;
  /** After the import, the heap collected. */
  readonly after: Memory;
  readonly check: { readonly sampled: number; readonly mismatched: { line: number; fields: string[] }[] };
}
