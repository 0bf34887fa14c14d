import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countDelta, READ_OPERATIONS, sumOf, WRITE_OPERATIONS } from '#bench/lib/runtime-probes.ts';
import { cpuMeter, formatNumber, round, sleep } from '#bench/lib/stats.ts';
import type { Metric, Result, Scenario, ScenarioOptions } from '#bench/scenario.ts';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamoCustomerRepository } from '#shared/adapters/dynamodb/customer.repository.ts';
import { createStore } from '#shared/domain/stores/manage-stores.ts';
import { storeAdminDeps } from '#shared/wiring/store-admin.ts';
import {
  api,
  CHECK_SAMPLE,
  collect,
  DEFAULT_COUNT,
  differences,
  exposedGc,
  FINISH_LIMIT_MS,
  type JobView,
  LOCAL_S3_BODY_LIMIT,
  lineAt,
  MIB,
  memorySampler,
  mib,
  mibOf,
  multipartUpload,
  PART_BYTES,
  POLL_MS,
  putFile,
  type Run,
  readMemory,
  SAMPLE_MS,
  SMALL_DIVISOR,
  signed,
  writeFile,
} from './import-support.ts';

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
    `/api/v1/batch/customers/uploads?append=update&size=${fileBytes}`,
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
