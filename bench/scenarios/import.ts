/**
 * Import scenario: the contact batch import, as the issue asks: "importing a 100,000-line file (time to finish, peak
 * memory of the worker)". One local runtime (random ports, its state in a temp directory: see below), one process, two
 * imports, each into a store of its own (a store may start one import every 10 s):
 *
 * 1. a JSONL file of `--count` / 10 richly populated customers (default 2,000), then one of `--count` (default
 *    20,000, see `DEFAULT_COUNT`): names, email, phone, country code, locale, city, gender, birth date, both consents, a default address,
 *    2 platform tags and 3 category tags (`tag_value`). Each file is generated streaming to a temp file; its size is
 *    reported;
 * 2. `POST /api/v1/batch/customers/uploads?append=update`, then the file is PUT to the upload URL it returns, streamed.
 *    The local S3 (fauxqs) takes at most 11 MiB per request body (real S3: 5 GB per PUT): a larger file is refused
 *    there (413), and is then uploaded to the same key as a multipart upload through the S3 API (noted in the report),
 *    which is what the service's start request and worker see either way;
 * 3. the heap is collected (`gc`, exposed at run time), the baseline `process.memoryUsage()` read, sampling starts
 *    (every 100 ms: rss, heapUsed, external; and the heap used right after each major collection, the live heap),
 *    then `POST …/uploads/{jobId}/start`; `GET /api/v1/batch/{jobId}` is polled every 500 ms until `finished` (at most
 *    20 minutes; an incomplete import is reported as such);
 * 4. after it: the heap is collected again and read (what the import left for good), and a sample of the imported
 *    contacts is read back through the customer repository and compared with their lines.
 *
 * Reported: time to finish (`finishedAt − startedAt`, and start request → `finishedAt`), lines/s, the job's counts,
 * DynamoDB operations per line, and the peak memory during the import, in itself and above the baseline. The worker
 * runs in this process with the runtime, the emulators and the bench, so the process's memory is what can be measured.
 * That is why the runtime keeps its state on disk here: in memory, dynalite holds every contact written in this
 * process (about 12 KB of buffers and 1 KB of heap per contact, over 1.2 GB for 100,000), which would grow with the
 * file whatever the worker does.
 *
 * Targets: every line imported and none failed (the issue's own check of a correct import); the peak heap increase of
 * the large import ≤ 2 × the small one's: the issue asks for memory "flat whatever the file size", the factor 2 is this
 * bench's (a tenfold file may cost a little more, not tenfold).
 */
import { once } from 'node:events';
import { createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
import { countDelta, READ_OPERATIONS, sumOf, WRITE_OPERATIONS } from '#bench/lib/runtime-probes.ts';
import { samplePerson } from '#bench/lib/sample-people.ts';
import { type CpuShare, cpuMeter, formatNumber, round, sleep } from '#bench/lib/stats.ts';
import type { Metric, Result, Scenario, ScenarioOptions } from '#bench/scenario.ts';
import { REGION } from '#local/resources.ts';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamoCustomerRepository } from '#shared/adapters/dynamodb/customer.repository.ts';
import type { Customer } from '#shared/domain/customers/model.ts';
import { createStore } from '#shared/domain/stores/manage-stores.ts';
import { storeAdminDeps } from '#shared/wiring/store-admin.ts';

/**
 * 20,000 by default, so that `npm run bench` runs every scenario within 10 minutes on 2 cores; `--count import=100000`
 * is the issue's exact case (several minutes on its own).
 */
const DEFAULT_COUNT = 20_000;
/** The comparison import is this many times smaller. */
const SMALL_DIVISOR = 10;
/** At most this long for one import (100,000 lines take several minutes on a small machine). */
const FINISH_LIMIT_MS = 20 * 60_000;
const SAMPLE_MS = 100;
const POLL_MS = 500;
/** fauxqs's request body limit (its Fastify `bodyLimit`); real S3 takes up to 5 GB in one PUT. */
const LOCAL_S3_BODY_LIMIT = 11 * 1_048_576;
/** Multipart upload part size, under the local limit (S3's minimum part is 5 MiB). */
const PART_BYTES = 8 * 1_048_576;
/** Lines generated per write to the temp file. */
const WRITE_CHUNK_LINES = 500;
/** Contacts read back and compared with their line, evenly spread over the file. */
const CHECK_SAMPLE = 200;
const MIB = 1_048_576;
const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
/** Creation times: from 2022-01-01 00:00:00 UTC, one contact every 7 minutes. */
const T0 = 1_640_995_200;

// ---- The file -------------------------------------------------------------------------------------------------------

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
const writeFile = async (path: string, count: number): Promise<number> => {
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
const differences = (i: number, customer: Customer | undefined): string[] => {
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

// ---- Memory ---------------------------------------------------------------------------------------------------------

/**
 * `gc()` without `--expose-gc` on the command line: the flag set at run time, then `gc` taken from a fresh context.
 * Done on first use, so importing this scenario (every bench process does) changes nothing for the others.
 */
let gcFunction: (() => void) | null | undefined;
const exposedGc = (): (() => void) | null => {
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

const collect = async () => {
  const gc = exposedGc();
  if (!gc) return;
  // Twice, with a turn of the event loop between: the first pass frees what the second can then compact.
  gc();
  await sleep(50);
  gc();
};

interface Memory {
  readonly rss: number;
  readonly heapUsed: number;
  readonly external: number;
}
const readMemory = (): Memory => {
  const { rss, heapUsed, external } = process.memoryUsage();
  return { rss, heapUsed, external };
};
const mib = (bytes: number) => round(bytes / MIB, 1);
/** `+1.5` / `-0.3`, in MiB. */
const signed = (bytes: number) => `${bytes >= 0 ? '+' : ''}${formatNumber(mib(bytes))}`;
const mibOf = (memory: Memory) => ({
  rss: mib(memory.rss),
  heapUsed: mib(memory.heapUsed),
  external: mib(memory.external),
});

interface MemoryTrace {
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
const memorySampler = () => {
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

// ---- The service's API ----------------------------------------------------------------------------------------------

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

const api = async <T>(runtime: LocalRuntime, apiKey: string, method: string, path: string): Promise<T> => {
  const response = await fetch(`${runtime.urls.main}${path}`, {
    method,
    headers: { 'x-service-access-token': apiKey },
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
  return (JSON.parse(text) as { data: T }).data;
};

/** PUTs the file to the presigned URL, streamed; the status code, or the error when the connection broke. */
const putFile = (url: string, path: string, size: number): Promise<{ status?: number; error?: string }> =>
  new Promise((resolve) => {
    const request = httpRequest(url, { method: 'PUT', headers: { 'content-length': size } }, (response) => {
      response.resume();
      response.once('end', () => resolve({ status: response.statusCode ?? 0 }));
    });
    request.once('error', (error) => resolve({ error: error.message }));
    pipeline(createReadStream(path), request).catch(() => undefined);
  });

/** Uploads the file to the upload URL's bucket and key as a multipart upload (S3 API, the local S3's endpoint). */
const multipartUpload = async (runtime: LocalRuntime, url: string, path: string): Promise<number> => {
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

// ---- One import -----------------------------------------------------------------------------------------------------

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

const importFile = async (
  runtime: LocalRuntime,
  dir: string,
  label: string,
  count: number,
  log: (line: string) => void,
): Promise<Run> => {
  const { store, apiKey } = await createStore(storeAdminDeps(), { name: `Bench import ${label}`, type: 'direct' });
  const path = join(dir, `${label}.jsonl`);
  const name = `import (${formatNumber(count)} lines)`;
  let started = performance.now();
  const fileBytes = await writeFile(path, count);
  const generateMs = performance.now() - started;
  log(`${name}: ${formatNumber(fileBytes / MIB)} MiB written to a temp file`);

  const upload = await api<{ jobId: string; uploadUrl: string }>(
    runtime,
    apiKey,
    'POST',
    '/api/v1/batch/customers/uploads?append=update',
  );
  started = performance.now();
  const put = await putFile(upload.uploadUrl, path, fileBytes);
  let via: Run['upload']['via'] = 'presigned PUT';
  let note: string | undefined;
  if (put.status !== 200) {
    const over =
      fileBytes > LOCAL_S3_BODY_LIMIT ? `, the file being over its ${LOCAL_S3_BODY_LIMIT / MIB} MiB body limit` : '';
    note = `the presigned PUT was refused by the local S3 (${put.status ?? put.error}${over})`;
    log(`${name}: ${note}; uploading it as a multipart upload instead`);
    const parts = await multipartUpload(runtime, upload.uploadUrl, path);
    via = 'multipart';
    note += `; uploaded in ${parts} parts of ≤ ${PART_BYTES / MIB} MiB`;
  }
  const uploadMs = performance.now() - started;

  await collect();
  const baseline = readMemory();
  const sampler = memorySampler();
  const opsBefore = runtime.dynamodbCalls();
  const cpu = cpuMeter();
  const startEpoch = Date.now();
  started = performance.now();
  await api(runtime, apiKey, 'POST', `/api/v1/batch/customers/uploads/${upload.jobId}/start`);
  log(`${name}: started`);

  let job: JobView;
  let polls = 0;
  let reported = started;
  for (;;) {
    await sleep(POLL_MS);
    job = await api<JobView>(runtime, apiKey, 'GET', `/api/v1/batch/${upload.jobId}`);
    polls++;
    const now = performance.now();
    if (job.status === 'finished' || now - started > FINISH_LIMIT_MS) break;
    if (now - reported >= 10_000) {
      reported = now;
      log(`${name}: ${job.status}, ${formatNumber(job.counts.lines)} lines (${Math.round((now - started) / 1000)} s)`);
    }
  }
  const waitedMs = performance.now() - started;
  const cpuShare = cpu();
  const dynamodb = countDelta(opsBefore, runtime.dynamodbCalls());
  const trace = sampler.stop();
  await collect();
  const after = readMemory();
  const finished = job.status === 'finished';

  const repository = dynamoCustomerRepository();
  const mismatched: Run['check']['mismatched'] = [];
  const sampled = Math.min(CHECK_SAMPLE, count);
  for (let k = 0; k < sampled; k++) {
    const i = Math.floor((k * (count - 1)) / Math.max(1, sampled - 1));
    const fields = differences(i, await repository.get(store.storeId, lineAt(i).id));
    if (fields.length > 0) mismatched.push({ line: i + 1, fields });
  }
  rmSync(path, { force: true });

  return {
    count,
    fileBytes,
    generateMs,
    upload: { via, ms: uploadMs, ...(note ? { note } : {}) },
    job,
    finished,
    runMs: finished && job.startedAt && job.finishedAt ? job.finishedAt - job.startedAt : waitedMs,
    wallMs: finished && job.finishedAt ? job.finishedAt - startEpoch : waitedMs,
    queueMs: job.startedAt ? job.startedAt - startEpoch : 0,
    polls,
    dynamodb,
    cpu: cpuShare,
    baseline,
    trace,
    after,
    check: { sampled, mismatched },
  };
};

// ---- The report -----------------------------------------------------------------------------------------------------

const increase = (run: Run) => ({
  rss: run.trace.peak.rss - run.baseline.rss,
  heapUsed: run.trace.peak.heapUsed - run.baseline.heapUsed,
  external: run.trace.peak.external - run.baseline.external,
});
/** The live heap's peak: after the major collections during the import, or after the one forced at its end. */
const liveHeapPeak = (run: Run) => Math.max(run.trace.peakLiveHeap, run.after.heapUsed);
const retained = (run: Run) => ({
  rss: run.after.rss - run.baseline.rss,
  heapUsed: run.after.heapUsed - run.baseline.heapUsed,
  external: run.after.external - run.baseline.external,
});
const ratio = (a: number, b: number) => (b > 0 ? a / b : Number.POSITIVE_INFINITY);

const detailOf = (run: Run) => ({
  count: run.count,
  fileBytes: run.fileBytes,
  fileMiB: mib(run.fileBytes),
  bytesPerLine: round(run.fileBytes / run.count, 1),
  generateMs: round(run.generateMs),
  upload: { ...run.upload, ms: round(run.upload.ms) },
  finished: run.finished,
  job: { ...run.job, errors: run.job.errors.slice(0, 20) },
  runMs: run.runMs,
  wallMs: run.wallMs,
  queueMs: run.queueMs,
  linesPerSecond: round(run.job.counts.lines / (run.runMs / 1000), 1),
  polls: run.polls,
  dynamodb: run.dynamodb,
  writesPerLine: round(sumOf(run.dynamodb, WRITE_OPERATIONS) / Math.max(1, run.job.counts.lines), 3),
  readsPerLine: round(sumOf(run.dynamodb, READ_OPERATIONS) / Math.max(1, run.job.counts.lines), 3),
  cpu: run.cpu,
  memoryMiB: {
    baseline: mibOf(run.baseline),
    peak: mibOf(run.trace.peak),
    peakIncrease: mibOf(increase(run)),
    liveHeapPeak: mib(liveHeapPeak(run)),
    liveHeapIncrease: mib(liveHeapPeak(run) - run.baseline.heapUsed),
    majorGcs: run.trace.majorGcs,
    afterCollected: mibOf(run.after),
    retainedIncrease: mibOf(retained(run)),
    samples: run.trace.samples,
    maxSampleGapMs: run.trace.maxGapMs,
    series: run.trace.series,
  },
  check: run.check,
});

/** Below this much time left, the worker continues in a new message (run-import's reserve; Lambda's limit 900 s). */
const CONTINUATION_AFTER_MS = 840_000;

const report = (small: Run, large: Run): Result => {
  const n = large.count;
  const counts = large.job.counts;
  const perLine = (names: readonly string[]) => sumOf(large.dynamodb, names) / Math.max(1, counts.lines);
  const largeUp = increase(large);
  const smallUp = increase(small);
  const largeLive = liveHeapPeak(large) - large.baseline.heapUsed;
  const smallLive = liveHeapPeak(small) - small.baseline.heapUsed;
  const nText = formatNumber(n);
  const smallText = formatNumber(small.count);
  const rate = (run: Run) => run.job.counts.lines / (run.runMs / 1000);

  const metrics: Metric[] = [
    {
      key: 'importedLines',
      label: `Lines imported (of ${nText})`,
      value: counts.imported,
      unit: '',
      target: { op: '>=', value: n },
    },
    { key: 'failedLines', label: 'Lines failed', value: counts.failed, unit: '', target: { op: '<=', value: 0 } },
    { key: 'finishSeconds', label: 'Time to finish (startedAt → finishedAt)', value: large.runMs / 1000, unit: 's' },
    { key: 'wallSeconds', label: 'Start request → finishedAt', value: large.wallMs / 1000, unit: 's' },
    { key: 'linesPerSecond', label: 'Lines imported per second', value: rate(large), unit: 'lines/s' },
    { key: 'writesPerLine', label: 'DynamoDB writes per line', value: perLine(WRITE_OPERATIONS), unit: '' },
    { key: 'readsPerLine', label: 'DynamoDB reads per line', value: perLine(READ_OPERATIONS), unit: '' },
    { key: 'peakHeapMiB', label: `Peak heap used, ${nText} lines`, value: mib(large.trace.peak.heapUsed), unit: 'MiB' },
    {
      key: 'peakHeapIncreaseMiB',
      label: `Peak heap increase, ${nText} lines`,
      value: mib(largeUp.heapUsed),
      unit: 'MiB',
    },
    { key: 'peakRssMiB', label: `Peak RSS, ${nText} lines`, value: mib(large.trace.peak.rss), unit: 'MiB' },
    { key: 'peakRssIncreaseMiB', label: `Peak RSS increase, ${nText} lines`, value: mib(largeUp.rss), unit: 'MiB' },
    {
      key: 'smallPeakHeapIncreaseMiB',
      label: `Peak heap increase, ${smallText} lines`,
      value: mib(smallUp.heapUsed),
      unit: 'MiB',
    },
    {
      key: 'smallPeakRssIncreaseMiB',
      label: `Peak RSS increase, ${smallText} lines`,
      value: mib(smallUp.rss),
      unit: 'MiB',
    },
    {
      key: 'heapIncreaseRatio',
      label: `Peak heap increase, ${nText} / ${smallText} lines`,
      value: ratio(largeUp.heapUsed, smallUp.heapUsed),
      unit: '×',
      target: { op: '<=', value: 2 },
    },
    { key: 'liveHeapIncreaseMiB', label: `Live heap increase, ${nText} lines`, value: mib(largeLive), unit: 'MiB' },
    {
      key: 'smallLiveHeapIncreaseMiB',
      label: `Live heap increase, ${smallText} lines`,
      value: mib(smallLive),
      unit: 'MiB',
    },
  ];

  const runText = (run: Run) =>
    `${formatNumber(run.count)} lines: file ${formatNumber(run.fileBytes / MIB)} MiB (${formatNumber(run.fileBytes / run.count)} bytes/line, generated in ${formatNumber(run.generateMs / 1000)} s), uploaded by ${run.upload.via} in ${formatNumber(run.upload.ms / 1000)} s; ${run.finished ? `finished ${run.job.result ?? ''}` : `NOT FINISHED within ${formatNumber(FINISH_LIMIT_MS / 60_000)} min (${run.job.status})`} in ${formatNumber(run.runMs / 1000)} s (${formatNumber(rate(run))} lines/s; ${formatNumber(run.queueMs / 1000)} s from the start request to the worker's start), counts ${JSON.stringify(run.job.counts)}; CPU ${formatNumber(run.cpu.processCores)} cores for this process, ${formatNumber(run.cpu.otherCores)} for other processes.`;
  const memoryText = (run: Run) => {
    const up = increase(run);
    const kept = retained(run);
    return `${formatNumber(run.count)} lines: baseline heap ${formatNumber(mib(run.baseline.heapUsed))} MiB, RSS ${formatNumber(mib(run.baseline.rss))} MiB; peak heap ${formatNumber(mib(run.trace.peak.heapUsed))} MiB (+${formatNumber(mib(up.heapUsed))}), peak RSS ${formatNumber(mib(run.trace.peak.rss))} MiB (+${formatNumber(mib(up.rss))}), peak external ${formatNumber(mib(run.trace.peak.external))} MiB (+${formatNumber(mib(up.external))}); live heap at most ${formatNumber(mib(liveHeapPeak(run)))} MiB (+${formatNumber(mib(liveHeapPeak(run) - run.baseline.heapUsed))}, ${run.trace.majorGcs} major collections); collected after the import: heap ${signed(kept.heapUsed)}, external ${signed(kept.external)}, RSS ${signed(kept.rss)} MiB over the baseline (${formatNumber(run.trace.samples)} samples, longest gap ${formatNumber(run.trace.maxGapMs)} ms).`;
  };
  const checkText = (run: Run) =>
    run.check.mismatched.length === 0
      ? `${run.check.sampled} contacts of the ${formatNumber(run.count)}-line import read back through the repository equal their lines`
      : `${run.check.mismatched.length} of ${run.check.sampled} contacts of the ${formatNumber(run.count)}-line import read back DIFFER from their lines (first: line ${run.check.mismatched[0]?.line}, ${run.check.mismatched[0]?.fields.join(', ')})`;
  const ops = Object.entries(large.dynamodb)
    .map(([name, value]) => `${name} ${formatNumber(value / Math.max(1, counts.lines))}`)
    .join(', ');
  const uploads = [small, large].filter((run) => run.upload.note);

  const notes = [
    runText(small),
    runText(large),
    ...(large.runMs > CONTINUATION_AFTER_MS
      ? [
          `The ${nText}-line import ran over ${CONTINUATION_AFTER_MS / 1000} s: the worker saved its place and continued in a new message (Lambda's 900 s limit), so its time includes a re-receive.`,
        ]
      : []),
    `DynamoDB operations per line (${nText}-line import, from the start request to finished, its ${large.polls} status polls included): ${ops}.`,
    `Memory, sampled every ${SAMPLE_MS} ms from just before the start request until finished, the heap collected before the baseline${exposedGc() ? '' : ' (NOT: gc could not be exposed)'}. ${memoryText(small)} ${memoryText(large)}`,
    `Reading the memory: the worker shares this process with the runtime (gateways, pollers, emulators) and the bench, so these are the process's figures. The peak heap used is mostly garbage not yet collected: V8 lets the heap grow with the allocation rate before a major collection, so it says more about the collector than about the worker. The live heap (read right after each major collection) is the working set: ${formatNumber(mib(smallLive))} MiB over the baseline for ${smallText} lines, ${formatNumber(mib(largeLive))} MiB for ${nText} (ratio ${formatNumber(ratio(largeLive, smallLive))}). The runtime keeps its state on disk here (a temp directory), so the contacts written do not stay in this process: what the heap retains once collected after the import is what grew for good. RSS keeps heap pages V8 has not returned yet: the ${nText}-line import's RSS baseline already holds what the ${smallText}-line one left, so compare peak RSS rather than RSS increases.`,
    ...uploads.map((run) => `${formatNumber(run.count)}-line upload: ${run.upload.note}.`),
    `${checkText(small)}; ${checkText(large)}.`,
    `Targets: all ${nText} lines imported and none failed; the peak heap increase of the ${nText}-line import ≤ 2 × the ${smallText}-line one's (this bench's factor for the issue's "memory flat whatever the file size"). Times, rates, operations and the other memory figures are context.`,
  ];

  return {
    scenario: 'import',
    title: `Contact batch import of ${nText} lines (and ${smallText} before it, to compare memory)`,
    metrics,
    notes,
    details: {
      sampleMs: SAMPLE_MS,
      pollMs: POLL_MS,
      finishLimitMs: FINISH_LIMIT_MS,
      gcExposed: exposedGc() !== null,
      small: detailOf(small),
      large: detailOf(large),
    },
  };
};

// ---- The scenario ---------------------------------------------------------------------------------------------------

export const importScenario: Scenario = {
  name: 'import',
  description: 'Contact batch import of --count lines (default 20,000) after one of --count/10: time, peak memory',
  async run(options: ScenarioOptions) {
    const { log } = options;
    const count = options.count ?? DEFAULT_COUNT;
    const smallCount = Math.max(1, Math.round(count / SMALL_DIVISOR));
    const dir = mkdtempSync(join(tmpdir(), 'storeflow-bench-import-'));
    try {
      // State on disk (a temp directory): what DynamoDB stores stays out of this process's memory, which the worker shares.
      log('import: starting the local runtime (state in a temp directory)');
      const runtime = await startLocalRuntime({ logLevel: 'ERROR', dataDir: join(dir, 'state') });
      try {
        const small = await importFile(runtime, dir, 'small', smallCount, log);
        const large = await importFile(runtime, dir, 'large', count, log);
        return report(small, large);
      } finally {
        await runtime.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
