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
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuMeter, formatNumber } from '#bench/lib/stats.ts';
import type { Scenario, ScenarioOptions } from '#bench/scenario.ts';
import { installReadMeter, type ReadMeter } from '#local/read-meter.ts';
import { startLocalRuntime } from '#local/runtime.ts';
import { checkExport, report } from './export-report.ts';
import {
  DEFAULT_COUNT,
  exportRequest,
  MAX_PAGE_SIZE,
  PACE_MS,
  PAGES,
  pacer,
  queryCalls,
  type Sample,
  seed,
} from './export-support.ts';

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
    // Past the default count the emulated table goes on disk (LevelDB): in memory, a million rich contacts fill the
    // JS heap and the seeding slows to a crawl in garbage collection (measured: 1,250/s at the start, 260/s by 300,000).
    const dataDir = count > DEFAULT_COUNT ? mkdtempSync(join(tmpdir(), 'bench-export-')) : undefined;
    log(`export: starting the local runtime (${dataDir ? `on disk, ${dataDir}` : 'in memory'})`);
    const runtime = await startLocalRuntime({ logLevel: 'ERROR', ...(dataDir ? { dataDir } : {}) });
    // The export touches no queue: idle pollers would only add their long polls to the CPU measured.
    runtime.setPollersPaused(true);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    let meter: ReadMeter | undefined;
    try {
      log(`export: seeding ${count} contacts (batch writes, 25 per call)`);
      const seeded = await seed(count, log);
      log(`export: seeded in ${formatNumber(seeded.elapsedMs / 1000)} s`);
      meter = installReadMeter();
      const context = { runtime, agent, meter, apiKey: seeded.apiKey, pace: pacer() };

      const totalPages = Math.ceil(count / PAGE_SIZE);
      // Pages 1…20 in turn (the whole store at the default count); a larger store is then jumped into cold.
      const sequential = Math.min(totalPages, PAGES);
      log(`export: exporting pages 1…${sequential} of ${totalPages} (${PAGE_SIZE} each), paced ${PACE_MS} ms apart`);
      const pages: Sample[] = [];
      const cpu = cpuMeter();
      const start = performance.now();
      for (let page = 1; page <= sequential; page++) {
        const sample = await exportRequest(context, `page ${page}`, { page, page_size: PAGE_SIZE });
        pages.push(sample);
        log(
          `export: page ${page}: ${formatNumber(sample.latencyMs)} ms, ${sample.records} records, ${queryCalls(sample.reads)} Query`,
        );
      }
      const wallMs = performance.now() - start;
      const cpuShare = cpu();
      const check = checkExport(seeded, pages, PAGE_SIZE);

      // Page 1 once more, its total still cached (counted under a minute ago): what page 1 costs without the count.
      const firstAgain = await exportRequest(context, 'page 1 again', { page: 1, page_size: PAGE_SIZE });

      log(`export: cold jump to page ${sequential} with created_at_start=0, then the same page again`);
      const coldQuery = { page: sequential, page_size: PAGE_SIZE, created_at_start: 0 };
      const cold = await exportRequest(context, `cold jump to page ${sequential}`, coldQuery);
      const coldRepeat = await exportRequest(context, `page ${sequential} again`, coldQuery);
      log(`export: cold jump ${formatNumber(cold.latencyMs)} ms, again ${formatNumber(coldRepeat.latencyMs)} ms`);
      let coldLast: Sample | undefined;
      if (totalPages > sequential) {
        const lastQuery = { page: totalPages, page_size: PAGE_SIZE, created_at_start: 1 };
        coldLast = await exportRequest(context, `cold jump to page ${totalPages}`, lastQuery);
        log(
          `export: cold jump to page ${totalPages}: ${formatNumber(coldLast.latencyMs)} ms, ${coldLast.records} records`,
        );
      }

      return report({
        pageSize: PAGE_SIZE,
        count,
        seeded,
        pages,
        wallMs,
        cpu: cpuShare,
        check,
        firstAgain,
        cold,
        coldRepeat,
        coldLast,
      });
    } finally {
      meter?.remove();
      agent.destroy();
      await runtime.stop();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    }
  },
};
