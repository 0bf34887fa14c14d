/**
 * Export scenario: the contact export (`GET {front}/api/v1/audience`) over a large store, as the issue asks: "exporting
 * 100,000 contacts at page size 5,000 (total time, page 1 vs page 20 latency and DynamoDB reads)". One local runtime
 * (in memory, random ports), one process, one run:
 *
 * 1. seed: `--count` richly populated contacts (default 100,000: names, email, phone, country, city, locale, gender,
 *    birth date, both consents, a default address, 3 category tags, 2 platform tags; creation times spread over about
 *    1.4 years, two contacts per second so the id breaks ties) in one store, straight through the customer repository
 *    (`save(customer, 0)`, one conditional PutItem each), `--concurrency` at a time. Its time is context only;
 * 2. export: pages 1…N at page_size count / 20 (at most 5,000) one after the other with `accept-encoding: gzip`, each request started at
 *    least 1.05 s after the previous one (the limit is 1 request/s per store). Each request's own latency (start to
 *    the last byte) is measured apart from the pacing; the total is reported both as the sum of the latencies and as
 *    wall time. Every seeded id must come exactly once, in the export's order (creation time, then id), and a sample
 *    of records must equal the contact record of what was seeded. Per page: latency, the runtime's DynamoDB operation
 *    deltas (Query, GetItem, PutItem, UpdateItem), the Query calls by kind with the items they read and the read
 *    capacity dynalite computes for them, compressed and decoded bytes, and the Lambda response payload it makes;
 * 3. cold jump: a fresh query shape (`created_at_start=0`: the same contacts and pages, another remembered-position
 *    key) straight to the last page: its latency and reads (the total is counted for the new shape, and the walk from
 *    the start reads keys only), its data compared with the sequential export's last page; then the same page again,
 *    which finds its start remembered.
 *
 * Targets: the last page costs about what page 1 costs (≤ 1.5 × page 1's Query calls, the total's once-a-minute count
 * left out: page 1 pays it), every contact exported exactly once, the largest page under Lambda's 6 MB response limit
 * even for a client that does not accept gzip. Everything else is context.
 *
 * The read meter is a middleware on the service's own DynamoDB client (the handlers run in this process): it sorts the
 * Query calls by kind, sums their `ScannedCount` and asks for `ReturnConsumedCapacity: TOTAL` on reads (the service
 * does not), so dynalite reports the read capacity each read would consume.
 */
import { Agent } from 'node:http';
import { type CpuShare, cpuMeter, formatNumber, round, summarize } from '#bench/lib/stats.ts';
import type { Metric, Result, Scenario, ScenarioOptions } from '#bench/scenario.ts';
import { startLocalRuntime } from '#local/runtime.ts';
import { contactRecord } from '#shared/domain/contacts/model.ts';
import {
  capacityOf,
  customerAt,
  DEFAULT_COUNT,
  EXPORT_FUNCTION,
  exportRequest,
  installReadMeter,
  LAMBDA_RESPONSE_LIMIT_BYTES,
  MAX_PAGE_SIZE,
  MB,
  PACE_MS,
  PAGES,
  pacer,
  QUERY_KINDS,
  queryCalls,
  queryItems,
  RECORD_CHECK_EVERY,
  type ReadMeter,
  type Sample,
  type Seeded,
  seed,
  WITHOUT_COUNT,
} from './export-support.ts';

// ---- Checks ---------------------------------------------------------------------------------------------------------

/** Every seeded id exactly once, in the export's order, and a sample of records equal to what was seeded. */
const checkExport = (seeded: Seeded, pages: readonly Sample[]) => {
  const seen = new Uint32Array(seeded.ids.length);
  let unknown = 0;
  let outOfOrder = 0;
  let recordsChecked = 0;
  const mismatches: string[] = [];
  let previous = '';
  const totalPages = Math.ceil(seeded.ids.length / PAGE_SIZE);
  /** Pages whose page, totals or record count are not what the seeded store makes. */
  const badPages = pages
    .filter(
      (s) =>
        s.answer?.page !== s.page ||
        s.answer.total_count !== seeded.ids.length ||
        s.answer.total_pages !== totalPages ||
        s.records !== Math.min(PAGE_SIZE, seeded.ids.length - (s.page - 1) * PAGE_SIZE),
    )
    .map((s) => s.page);
  for (const sample of pages) {
    for (const record of sample.data) {
      const i = seeded.indexOf.get(record.id);
      if (i === undefined) {
        unknown++;
        continue;
      }
      seen[i] = (seen[i] ?? 0) + 1;
      const key = `${record.created_at}#${record.id}`;
      if (key <= previous) outOfOrder++;
      previous = key;
      if (i % RECORD_CHECK_EVERY === 0) {
        recordsChecked++;
        const expected = JSON.stringify(contactRecord(customerAt(seeded.storeId, i, record.id, seeded.updatedAt)));
        if (JSON.stringify(record) !== expected && mismatches.length < 3) {
          mismatches.push(`contact ${i}: got ${JSON.stringify(record)}, expected ${expected}`);
        }
      }
    }
  }
  let exactlyOnce = 0;
  let duplicated = 0;
  let missing = 0;
  for (const n of seen) {
    if (n === 1) exactlyOnce++;
    else if (n === 0) missing++;
    else duplicated++;
  }
  return { exactlyOnce, duplicated, missing, unknown, outOfOrder, recordsChecked, mismatches, badPages };
};

const sameIds = (a: Sample, b: Sample) =>
  a.data.length === b.data.length && a.data.every((record, k) => record.id === b.data[k]?.id);

// ---- Report ---------------------------------------------------------------------------------------------------------

/** A sample without its records, rounded, for the JSON details. */
const detailOf = (s: Sample) => ({
  label: s.label,
  page: s.page,
  status: s.status,
  latencyMs: round(s.latencyMs),
  ttfbMs: round(s.ttfbMs),
  decodeMs: round(s.decodeMs),
  records: s.records,
  totalCount: s.answer?.total_count,
  totalPages: s.answer?.total_pages,
  encoding: s.encoding,
  compressedBytes: s.compressedBytes,
  decodedBytes: s.decodedBytes,
  lambdaPayloadBytes: s.lambdaPayloadBytes,
  plainLambdaPayloadBytes: s.plainLambdaPayloadBytes,
  operations: s.operations,
  queryCalls: queryCalls(s.reads),
  itemsRead: queryItems(s.reads),
  readCapacity: capacityOf(s.reads),
  reads: s.reads,
  rateLimited: s.rateLimited,
});

const readsText = (s: Sample) => {
  const parts = QUERY_KINDS.filter((kind) => s.reads[kind].calls > 0).map(
    (kind) =>
      `${kind} ${s.reads[kind].calls} × (${formatNumber(s.reads[kind].items)} items, ${formatNumber(s.reads[kind].capacity)} RCU)`,
  );
  return `${parts.join(', ') || 'no Query'}; GetItem ${s.operations.GetItem ?? 0}, PutItem ${s.operations.PutItem ?? 0}, UpdateItem ${s.operations.UpdateItem ?? 0}`;
};

interface Measured {
  readonly count: number;
  readonly seeded: Seeded;
  readonly pages: readonly Sample[];
  readonly wallMs: number;
  readonly cpu: CpuShare;
  readonly check: ReturnType<typeof checkExport>;
  /** Page 1 requested again right after the export (its total cached). */
  readonly firstAgain: Sample;
  readonly cold: Sample;
  readonly coldRepeat: Sample;
}

const report = (m: Measured): Result => {
  const { pages, firstAgain, cold, coldRepeat, check } = m;
  const first = pages[0] as Sample;
  const last = pages.at(-1) as Sample;
  const n = last.page;
  const latencySum = pages.reduce((sum, s) => sum + s.latencyMs, 0);
  const largestCompressed = pages.reduce((a, b) => (b.compressedBytes > a.compressedBytes ? b : a));
  const largestPlain = pages.reduce((a, b) => (b.plainLambdaPayloadBytes > a.plainLambdaPayloadBytes ? b : a));
  const firstQueriesNoCount = queryCalls(first.reads, WITHOUT_COUNT);
  const lastQueriesNoCount = queryCalls(last.reads, WITHOUT_COUNT);
  const countedOn = pages.filter((s) => s.reads.count.calls > 0).map((s) => s.page);
  const restLatency = summarize(pages.slice(1).map((s) => s.latencyMs));
  const bytesPerRecord = largestPlain.records > 0 ? largestPlain.plainLambdaPayloadBytes / largestPlain.records : 0;
  const coldFirstRatio = first.latencyMs > 0 ? cold.latencyMs / first.latencyMs : 0;
  const timeoutS = EXPORT_FUNCTION?.timeoutSeconds;
  const mismatchedOperations = [...pages, firstAgain, cold, coldRepeat].filter(
    (s) => (s.operations.Query ?? 0) !== queryCalls(s.reads),
  ).length;

  const metrics: Metric[] = [
    {
      key: 'exported_once',
      label: `Contacts exported exactly once (of ${formatNumber(m.count)})`,
      value: check.exactlyOnce,
      unit: 'contacts',
      target: { op: '>=', value: m.count },
    },
    {
      key: 'query_calls_last_over_first',
      label: `Page ${n} / page 1 DynamoDB Query calls (without the total count)`,
      value: firstQueriesNoCount > 0 ? lastQueriesNoCount / firstQueriesNoCount : Number.POSITIVE_INFINITY,
      unit: '×',
      target: { op: '<=', value: 1.5 },
    },
    {
      key: 'largest_plain_payload',
      label: 'Largest page as Lambda response payload, uncompressed',
      value: largestPlain.plainLambdaPayloadBytes / MB,
      unit: 'MB',
      target: { op: '<=', value: LAMBDA_RESPONSE_LIMIT_BYTES / MB },
    },
    { key: 'export_latency_sum', label: `Export of ${n} pages, sum of latencies`, value: latencySum / 1000, unit: 's' },
    { key: 'export_wall', label: `Export of ${n} pages, wall time (paced)`, value: m.wallMs / 1000, unit: 's' },
    { key: 'page_first_latency', label: 'Page 1 latency', value: first.latencyMs, unit: 'ms' },
    { key: 'page_last_latency', label: `Page ${n} latency`, value: last.latencyMs, unit: 'ms' },
    {
      key: 'latency_last_over_first',
      label: `Page ${n} / page 1 latency`,
      value: first.latencyMs > 0 ? last.latencyMs / first.latencyMs : 0,
      unit: '×',
    },
    {
      key: 'pages_rest_latency_p50',
      label: `Pages 2…${n} latency, median`,
      value: restLatency.p50,
      unit: 'ms',
    },
    {
      key: 'page_first_again_latency',
      label: 'Page 1 again, total cached: latency',
      value: firstAgain.latencyMs,
      unit: 'ms',
    },
    {
      key: 'latency_last_over_first_again',
      label: `Page ${n} / page 1 again latency (no count in either)`,
      value: firstAgain.latencyMs > 0 ? last.latencyMs / firstAgain.latencyMs : 0,
      unit: '×',
    },
    {
      key: 'page_first_queries',
      label: 'Page 1 Query calls (with the total count)',
      value: queryCalls(first.reads),
      unit: '',
    },
    { key: 'page_last_queries', label: `Page ${n} Query calls`, value: queryCalls(last.reads), unit: '' },
    {
      key: 'page_first_items',
      label: 'Page 1 items read (with the total count)',
      value: queryItems(first.reads),
      unit: '',
    },
    { key: 'page_last_items', label: `Page ${n} items read`, value: queryItems(last.reads), unit: '' },
    { key: 'page_first_rcu', label: 'Page 1 read capacity (dynalite)', value: capacityOf(first.reads), unit: 'RCU' },
    { key: 'page_last_rcu', label: `Page ${n} read capacity (dynalite)`, value: capacityOf(last.reads), unit: 'RCU' },
    {
      key: 'largest_compressed',
      label: 'Largest page, gzipped body',
      value: largestCompressed.compressedBytes / MB,
      unit: 'MB',
    },
    {
      key: 'largest_decoded',
      label: 'Largest page, decoded body',
      value: Math.max(...pages.map((s) => s.decodedBytes)) / MB,
      unit: 'MB',
    },
    { key: 'cold_jump_latency', label: `Cold jump to page ${n} latency`, value: cold.latencyMs, unit: 'ms' },
    { key: 'cold_jump_queries', label: `Cold jump to page ${n} Query calls`, value: queryCalls(cold.reads), unit: '' },
    { key: 'cold_jump_items', label: `Cold jump to page ${n} items read`, value: queryItems(cold.reads), unit: '' },
    { key: 'cold_repeat_latency', label: `Same page ${n} again latency`, value: coldRepeat.latencyMs, unit: 'ms' },
    {
      key: 'cold_repeat_queries',
      label: `Same page ${n} again Query calls`,
      value: queryCalls(coldRepeat.reads),
      unit: '',
    },
    {
      key: 'seed_seconds',
      label: `Seeding ${formatNumber(m.count)} contacts`,
      value: m.seeded.elapsedMs / 1000,
      unit: 's',
    },
  ];

  const notes = [
    `Seeded ${formatNumber(m.count)} contacts in one store through the customer repository (one conditional PutItem each, ${formatNumber(m.count / (m.seeded.elapsedMs / 1000))}/s): context only. \`--count N\` seeds another number (page size stays 5,000; the last page is then page ⌈N / 5000⌉).`,
    `Export: pages 1…${n} at page_size ${PAGE_SIZE} with accept-encoding gzip, each request started ≥ ${PACE_MS} ms after the previous one (1 request/s per store); latency = request start to the last body byte, gunzip and parse excluded. Wall ${formatNumber(m.wallMs / 1000)} s vs ${formatNumber(latencySum / 1000)} s of latencies: ${m.wallMs > latencySum * 1.2 ? 'the pacing dominates' : 'the requests themselves dominate'}. Pages 2…${n}: median ${formatNumber(restLatency.p50)} ms, fastest ${formatNumber(Math.min(...pages.slice(1).map((s) => s.latencyMs)))} ms, slowest ${formatNumber(restLatency.max)} ms. ${pages.reduce((k, s) => k + s.rateLimited, 0)} answers were 429. CPU during the export: this process ${m.cpu.processCores} cores, other processes ${m.cpu.otherCores}.`,
    `Checks: ${formatNumber(check.exactlyOnce)} ids exactly once, ${check.duplicated} duplicated, ${check.missing} missing, ${check.unknown} unknown, ${check.outOfOrder} out of (created_at, id) order; page, totals and record count as expected on ${check.badPages.length === 0 ? 'every page' : `every page but ${check.badPages.join(', ')}`}; ${formatNumber(check.recordsChecked)} records (every ${RECORD_CHECK_EVERY}th contact) compared in full with the contact record of what was seeded: ${check.mismatches.length === 0 ? 'all equal' : `mismatches, first: ${check.mismatches[0]}`}.`,
    `Page 1: ${readsText(first)}. Page ${n}: ${readsText(last)}. Page 1 pays the total, counted once a minute per query shape (Select COUNT over the whole range: DynamoDB reads every item for it, keys or not)${countedOn.length > 1 ? `; it was counted again on page(s) ${countedOn.slice(1).join(', ')} (the minute ran out)` : ''}. Without it: page 1 ${firstQueriesNoCount} Query calls, ${formatNumber(queryItems(first.reads, WITHOUT_COUNT))} items; page ${n} ${lastQueriesNoCount} Query calls (the remembered start's lookup is 1), ${formatNumber(queryItems(last.reads, WITHOUT_COUNT))} items. A page of ${PAGE_SIZE} takes several Query calls because DynamoDB (and dynalite) stop each at 1 MB of items.`,
    `Page 1 again right after the export: ${formatNumber(firstAgain.latencyMs)} ms, ${readsText(firstAgain)}${firstAgain.reads.count.calls > 0 ? ' (the total was counted again: the export took over a minute)' : ' (total cached)'}; its data ${sameIds(firstAgain, first) ? 'equals' : 'DIFFERS from'} page 1's. Page ${n} / page 1 again latency: ${formatNumber(firstAgain.latencyMs > 0 ? last.latencyMs / firstAgain.latencyMs : 0)} ×.`,
    `Sizes: the largest page is ${formatNumber(largestCompressed.compressedBytes / 1024)} KiB gzipped (${formatNumber(largestCompressed.lambdaPayloadBytes / MB)} MB as the Lambda payload: base64 in the result JSON) and ${formatNumber(largestPlain.decodedBytes / MB)} MB decoded; a client that does not send accept-encoding gzip gets it plain, ${formatNumber(largestPlain.plainLambdaPayloadBytes / MB)} MB as the Lambda payload (the body is a JSON string inside the result JSON, so its quotes are escaped), against the 6 MB limit taken as ${formatNumber(LAMBDA_RESPONSE_LIMIT_BYTES)} bytes (AWS's 6 MB is 6 MiB; this is stricter). Names, cities and provinces include non-ASCII characters (bytes, not characters, are counted). A record takes ${formatNumber(bytesPerRecord)} bytes of the plain payload: ${PAGE_SIZE} records reach the limit at ${formatNumber(LAMBDA_RESPONSE_LIMIT_BYTES / PAGE_SIZE)} bytes each. The gzip ratio (${formatNumber(largestCompressed.decodedBytes / largestCompressed.compressedBytes)} ×) flatters: the seeded values repeat more than real contacts'.`,
    `Cold jump: query shape created_at_start=0 (same contacts and pages, nothing remembered for it) straight to page ${n}: ${formatNumber(cold.latencyMs)} ms (${formatNumber(coldFirstRatio)} × page 1 of the sequential export), ${readsText(cold)}: the total is counted for the new shape and the ${n - 1} earlier pages are walked reading keys only (but ${formatNumber(cold.reads.skip.capacity)} RCU: a projection does not reduce what DynamoDB charges, it reads whole index items). Its data ${sameIds(cold, last) ? 'equals' : 'DIFFERS from'} the sequential export's page ${n}. The same page again: ${formatNumber(coldRepeat.latencyMs)} ms, ${readsText(coldRepeat)}.${timeoutS !== undefined && cold.latencyMs > timeoutS * 1000 * 0.5 ? ` The function's timeout is ${timeoutS} s: a deeper cold jump would come near it.` : ''}`,
    `Reads are counted by a middleware on the service's DynamoDB client (Query calls by kind: page = items of the page, skip = keys-only walk, count = the total, positions = the remembered-start lookup), which also asks for ReturnConsumedCapacity TOTAL so dynalite reports the read capacity (its estimate of DynamoDB's: eventually consistent, 4 KB units over the summed item sizes). ${mismatchedOperations === 0 ? "Its Query counts equal the runtime's on every request." : `Its Query counts differ from the runtime's on ${mismatchedOperations} request(s).`}`,
    'Targets: exactly-once (≥ the seeded count), the last page ≤ 1.5 × page 1 in Query calls (the issue: "must cost about what page 1 costs"; the once-a-minute total count left out, page 1 pays it), the largest page < 6 MB even uncompressed. Everything else is context.',
  ];

  return {
    scenario: 'export',
    title: `Contact export of ${formatNumber(m.count)} contacts at page size ${formatNumber(PAGE_SIZE)}`,
    metrics,
    notes,
    details: {
      count: m.count,
      pageSize: PAGE_SIZE,
      paceMs: PACE_MS,
      seed: { elapsedMs: round(m.seeded.elapsedMs), perSecond: round(m.count / (m.seeded.elapsedMs / 1000), 1) },
      export: {
        wallMs: round(m.wallMs),
        latencySumMs: round(latencySum),
        pagesAfterFirstMs: Object.fromEntries(Object.entries(restLatency).map(([k, v]) => [k, round(v)])),
        cpu: m.cpu,
        check,
      },
      pages: pages.map(detailOf),
      firstAgain: detailOf(firstAgain),
      coldJump: {
        query: { created_at_start: 0, page: n, page_size: PAGE_SIZE },
        sameDataAsSequential: sameIds(cold, last),
        first: detailOf(cold),
        again: detailOf(coldRepeat),
      },
      lambdaResponseLimitBytes: LAMBDA_RESPONSE_LIMIT_BYTES,
    },
  };
};

// ---- The scenario ---------------------------------------------------------------------------------------------------

/** The page size of this run (set when it starts: one run per process). */
let PAGE_SIZE = MAX_PAGE_SIZE;

export const exportScenario: Scenario = {
  name: 'export',
  description:
    'Contact export of --count contacts (default 100,000) at a twentieth per page (5,000): 1 vs 20, cold jump',
  async run(options: ScenarioOptions) {
    const { log } = options;
    const count = options.count ?? DEFAULT_COUNT;
    PAGE_SIZE = Math.min(MAX_PAGE_SIZE, Math.max(1, Math.ceil(count / PAGES)));
    log('export: starting the local runtime (in memory)');
    const runtime = await startLocalRuntime({ logLevel: 'ERROR' });
    // The export touches no queue: idle pollers would only add their long polls to the CPU measured.
    runtime.setPollersPaused(true);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    let meter: ReadMeter | undefined;
    try {
      log(`export: seeding ${count} contacts (${options.concurrency} saves at a time)`);
      const seeded = await seed(count, options.concurrency, log);
      log(`export: seeded in ${formatNumber(seeded.elapsedMs / 1000)} s`);
      meter = installReadMeter();
      const context = { runtime, agent, meter, apiKey: seeded.apiKey, pace: pacer() };

      const totalPages = Math.ceil(count / PAGE_SIZE);
      log(`export: exporting ${totalPages} pages of ${PAGE_SIZE}, paced ${PACE_MS} ms apart`);
      const pages: Sample[] = [];
      const cpu = cpuMeter();
      const start = performance.now();
      for (let page = 1; page <= totalPages; page++) {
        const sample = await exportRequest(context, `page ${page}`, { page, page_size: PAGE_SIZE });
        pages.push(sample);
        log(
          `export: page ${page}: ${formatNumber(sample.latencyMs)} ms, ${sample.records} records, ${queryCalls(sample.reads)} Query`,
        );
      }
      const wallMs = performance.now() - start;
      const cpuShare = cpu();
      const check = checkExport(seeded, pages);

      // Page 1 once more, its total still cached (counted under a minute ago): what page 1 costs without the count.
      const firstAgain = await exportRequest(context, 'page 1 again', { page: 1, page_size: PAGE_SIZE });

      log(`export: cold jump to page ${totalPages} with created_at_start=0, then the same page again`);
      const coldQuery = { page: totalPages, page_size: PAGE_SIZE, created_at_start: 0 };
      const cold = await exportRequest(context, `cold jump to page ${totalPages}`, coldQuery);
      const coldRepeat = await exportRequest(context, `page ${totalPages} again`, coldQuery);
      log(`export: cold jump ${formatNumber(cold.latencyMs)} ms, again ${formatNumber(coldRepeat.latencyMs)} ms`);

      return report({ count, seeded, pages, wallMs, cpu: cpuShare, check, firstAgain, cold, coldRepeat });
    } finally {
      meter?.remove();
      agent.destroy();
      await runtime.stop();
    }
  },
};
