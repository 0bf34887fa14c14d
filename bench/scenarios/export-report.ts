/** The export scenario's checks and report (bench/scenarios/export.ts): every seeded id once, and the figures. */

import { type CpuShare, formatNumber, round, summarize } from '#bench/lib/stats.ts';
import type { Metric, Result } from '#bench/scenario.ts';
import { itemsRead } from '#local/read-meter.ts';
import { contactRecord } from '#shared/domain/contacts/model.ts';
import {
  capacityOf,
  customerAt,
  EXPORT_FUNCTION,
  LAMBDA_RESPONSE_LIMIT_BYTES,
  MB,
  PACE_MS,
  QUERY_KINDS,
  queryCalls,
  RECORD_CHECK_EVERY,
  type Sample,
  type Seeded,
  WITHOUT_COUNT,
} from './export-support.ts';

// ---- Checks ---------------------------------------------------------------------------------------------------------

/** Every seeded id exactly once, in the export's order, and a sample of records equal to what was seeded. */
export const checkExport = (seeded: Seeded, pages: readonly Sample[], pageSize: number) => {
  const seen = new Uint32Array(seeded.ids.length);
  let unknown = 0;
  let outOfOrder = 0;
  let recordsChecked = 0;
  const mismatches: string[] = [];
  let previous = '';
  const totalPages = Math.ceil(seeded.ids.length / pageSize);
  /** Pages whose page, totals or record count are not what the seeded store makes. */
  const badPages = pages
    .filter(
      (s) =>
        s.answer?.page !== s.page ||
        s.answer.total_count !== seeded.ids.length ||
        s.answer.total_pages !== totalPages ||
        s.records !== Math.min(pageSize, seeded.ids.length - (s.page - 1) * pageSize),
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
  // The pages taken hold the first contacts of the export order: seeded in that order, pairs by id, an even count.
  const exported = Math.min(seeded.ids.length, pages.length * pageSize);
  let exactlyOnce = 0;
  let duplicated = 0;
  let missing = 0;
  let beyond = 0;
  seen.forEach((n, i) => {
    if (i >= exported) beyond += n;
    else if (n === 1) exactlyOnce++;
    else if (n === 0) missing++;
    else duplicated++;
  });
  return {
    exported,
    exactlyOnce,
    duplicated,
    missing,
    beyond,
    unknown,
    outOfOrder,
    recordsChecked,
    mismatches,
    badPages,
  };
};

/** The records of the last page as the seeded order makes them (pairs of a second ordered by id). */
const lastIds = (m: Measured) => {
  const from = (Math.ceil(m.count / m.pageSize) - 1) * m.pageSize;
  return m.seeded.ids
    .map((id, i) => ({ id, i }))
    .slice(from)
    .sort((a, b) => Math.floor(a.i / 2) - Math.floor(b.i / 2) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map(({ id }) => ({ id }));
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
  itemsRead: itemsRead(s.reads),
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

export interface Measured {
  /** The page size of the run: a twentieth of the contacts, at most 5,000. */
  readonly pageSize: number;
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
  /** With more pages than the sequential export takes: a cold jump to the very last page. */
  readonly coldLast: Sample | undefined;
}

export const report = (m: Measured): Result => {
  const { pages, firstAgain, cold, coldRepeat, coldLast, check } = m;
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
      label: `Contacts of pages 1…${n} exported exactly once (of ${formatNumber(check.exported)})`,
      value: check.exactlyOnce,
      unit: 'contacts',
      target: { op: '>=', value: check.exported },
    },
    {
      key: 'page_first_items_per_page',
      label: 'Page 1 with its total: items read ÷ items of a page',
      value: itemsRead(first.reads) / m.pageSize,
      unit: '×',
      target: { op: '<=', value: 1.5 },
    },
    {
      key: 'cold_jump_items_per_page',
      label: `Cold jump to page ${cold.page} (a shape never paged): items read ÷ items of a page`,
      value: itemsRead(cold.reads) / m.pageSize,
      unit: '×',
      target: { op: '<=', value: 1.5 },
    },
    ...(coldLast
      ? [
          {
            key: 'cold_last_items_per_page',
            label: `Cold jump to the last page, ${coldLast.page} (another new shape): items read ÷ items of a page`,
            value: itemsRead(coldLast.reads) / m.pageSize,
            unit: '×',
            target: { op: '<=' as const, value: 1.5 },
          },
          {
            key: 'cold_last_latency',
            label: `Cold jump to page ${coldLast.page} latency`,
            value: coldLast.latencyMs,
            unit: 'ms',
          },
        ]
      : []),
    {
      key: 'query_calls_last_over_first',
      label: `Page ${n} / page 1 DynamoDB Query calls (without the total count)`,
      value: firstQueriesNoCount > 0 ? lastQueriesNoCount / firstQueriesNoCount : Number.POSITIVE_INFINITY,
      unit: '×',
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
      value: itemsRead(first.reads),
      unit: '',
    },
    { key: 'page_last_items', label: `Page ${n} items read`, value: itemsRead(last.reads), unit: '' },
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
    { key: 'cold_jump_items', label: `Cold jump to page ${n} items read`, value: itemsRead(cold.reads), unit: '' },
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
    `Seeded ${formatNumber(m.count)} contacts in one store through batch writes (25 items per BatchWriteItem, eight in flight) with the export's contact counters written whole per bucket and without the search's lookup items, which the export never reads (${formatNumber(m.count / (m.seeded.elapsedMs / 1000))}/s): context only. \`--count N\` seeds another number (page size a twentieth of it, at most 5,000; pages 1…20 are taken in turn, and a larger store's last page is jumped to cold).`,
    `Export: pages 1…${n} at page_size ${m.pageSize} with accept-encoding gzip, each request started ≥ ${PACE_MS} ms after the previous one (1 request/s per store); latency = request start to the last body byte, gunzip and parse excluded. Wall ${formatNumber(m.wallMs / 1000)} s vs ${formatNumber(latencySum / 1000)} s of latencies: ${m.wallMs > latencySum * 1.2 ? 'the pacing dominates' : 'the requests themselves dominate'}. Pages 2…${n}: median ${formatNumber(restLatency.p50)} ms, fastest ${formatNumber(Math.min(...pages.slice(1).map((s) => s.latencyMs)))} ms, slowest ${formatNumber(restLatency.max)} ms. ${pages.reduce((k, s) => k + s.rateLimited, 0)} answers were 429. CPU during the export: this process ${m.cpu.processCores} cores, other processes ${m.cpu.otherCores}.`,
    `Checks: ${formatNumber(check.exactlyOnce)} ids exactly once, ${check.duplicated} duplicated, ${check.missing} missing, ${check.unknown} unknown, ${check.outOfOrder} out of (created_at, id) order; page, totals and record count as expected on ${check.badPages.length === 0 ? 'every page' : `every page but ${check.badPages.join(', ')}`}; ${formatNumber(check.recordsChecked)} records (every ${RECORD_CHECK_EVERY}th contact) compared in full with the contact record of what was seeded: ${check.mismatches.length === 0 ? 'all equal' : `mismatches, first: ${check.mismatches[0]}`}.`,
    `Page 1: ${readsText(first)}. Page ${n}: ${readsText(last)}. The total comes from the store's contact counters (a few hundred small items: 30-day periods, and days, hours, minutes and seconds at the edges of the range)${countedOn.length > 0 ? `; the total was COUNTED (Select COUNT) on page(s) ${countedOn.join(', ')}: the store's counters were not exact` : ''}. Page ${n} starts where page ${n - 1} ended (the remembered start's lookup is 1 Query). A page of ${m.pageSize} takes several Query calls because DynamoDB (and dynalite) stop each at 1 MB of items.`,
    `Page 1 again right after the export: ${formatNumber(firstAgain.latencyMs)} ms, ${readsText(firstAgain)}${firstAgain.reads.count.calls > 0 ? ' (the total was counted again: the export took over a minute)' : ' (total cached)'}; its data ${sameIds(firstAgain, first) ? 'equals' : 'DIFFERS from'} page 1's. Page ${n} / page 1 again latency: ${formatNumber(firstAgain.latencyMs > 0 ? last.latencyMs / firstAgain.latencyMs : 0)} ×.`,
    `Sizes: the largest page is ${formatNumber(largestCompressed.compressedBytes / 1024)} KiB gzipped (${formatNumber(largestCompressed.lambdaPayloadBytes / MB)} MB as the Lambda payload: base64 in the result JSON) and ${formatNumber(largestPlain.decodedBytes / MB)} MB decoded; a client that does not send accept-encoding gzip gets it plain, ${formatNumber(largestPlain.plainLambdaPayloadBytes / MB)} MB as the Lambda payload (the body is a JSON string inside the result JSON, so its quotes are escaped), against the 6 MB limit taken as ${formatNumber(LAMBDA_RESPONSE_LIMIT_BYTES)} bytes (AWS's 6 MB is 6 MiB; this is stricter). Names, cities and provinces include non-ASCII characters (bytes, not characters, are counted). A record takes ${formatNumber(bytesPerRecord)} bytes of the plain payload: ${m.pageSize} records reach the limit at ${formatNumber(LAMBDA_RESPONSE_LIMIT_BYTES / m.pageSize)} bytes each. The gzip ratio (${formatNumber(largestCompressed.decodedBytes / largestCompressed.compressedBytes)} ×) flatters: the seeded values repeat more than real contacts'.`,
    `Cold jump: query shape created_at_start=0 (same contacts and pages, nothing remembered for it) straight to page ${cold.page}: ${formatNumber(cold.latencyMs)} ms (${formatNumber(coldFirstRatio)} × page 1 of the sequential export), ${readsText(cold)}: the counters give the total and the creation second where the page starts (descending from its period through days, hours, minutes and seconds); only the keys of contacts before it within that second are skipped. Its data ${sameIds(cold, pages[cold.page - 1] as Sample) ? 'equals' : 'DIFFERS from'} the sequential export's page ${cold.page}. The same page again: ${formatNumber(coldRepeat.latencyMs)} ms, ${readsText(coldRepeat)}.${timeoutS !== undefined && cold.latencyMs > timeoutS * 1000 * 0.5 ? ` The function's timeout is ${timeoutS} s: a deeper cold jump would come near it.` : ''}`,
    `Reads are counted by a middleware on the service's DynamoDB client (Query calls by kind: page = items of the page, skip = keys skipped, counters = the contact counters, count = a counted total, positions = the remembered-start lookup; GetItem = the store's counter state and the like), which also asks for ReturnConsumedCapacity TOTAL so dynalite reports the read capacity (its estimate of DynamoDB's: eventually consistent, 4 KB units over the summed item sizes). ${mismatchedOperations === 0 ? "Its Query counts equal the runtime's on every request." : `Its Query counts differ from the runtime's on ${mismatchedOperations} request(s).`}`,
    `Targets: page 1 with its total, and a cold jump to page ${cold.page} of a query shape never paged before${coldLast ? ` (and to the last page, ${coldLast.page})` : ''}, each read at most 1.5 × the items of one page — every item read counts: the contact counters, the remembered-start lookup, the store's counter state, keys skipped and the page itself; every contact of the pages taken exactly once; the largest page < 6 MB even uncompressed. Everything else is context.${coldLast ? ` The last page: ${coldLast.records} records, ${readsText(coldLast)}; its ids ${sameIds(coldLast, { data: lastIds(m) } as unknown as Sample) ? 'equal' : 'DIFFER from'} the tail of the export order.` : ''}`,
  ];

  return {
    scenario: 'export',
    title: `Contact export of ${formatNumber(m.count)} contacts at page size ${formatNumber(m.pageSize)}`,
    metrics,
    notes,
    details: {
      count: m.count,
      pageSize: m.pageSize,
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
        query: { created_at_start: 0, page: n, page_size: m.pageSize },
        sameDataAsSequential: sameIds(cold, last),
        first: detailOf(cold),
        again: detailOf(coldRepeat),
        ...(coldLast ? { last: detailOf(coldLast) } : {}),
      },
      lambdaResponseLimitBytes: LAMBDA_RESPONSE_LIMIT_BYTES,
    },
  };
};
