/**
 * Worker scenario: how fast the ingest worker applies a store's real mix of events, and what each applied event costs
 * in DynamoDB operations and Scheduler calls. One local runtime (in memory, random ports), one process, one run:
 *
 * 1. with the queue pollers paused, `--count` events (default 3,000) are sent through `POST /api/v1/events` as shopper,
 *    buyer and catalog journeys over many stores (each kept under the per-store limit): customers, page views, carts,
 *    checkouts, orders, products with variants and stock, back-in-stock subscriptions and restocks, custom
 *    notifications. The plan is seeded, so every run sends the same events. Every one must be accepted, or the
 *    scenario fails;
 * 2. the pollers resume and the worker is timed until the ingest queue is empty (read empty twice in a row; bounded,
 *    an incomplete drain is reported as such): events applied per second, the CPU they took, DynamoDB operations and
 *    Scheduler calls per applied event;
 * 3. when the ingest scenario ran before in the same invocation, the ratio of the worker's rate to the gateway's.
 *
 * No target: the issue sets none for the worker, its figures are context for the ingestion rate.
 */
import { availableParallelism } from 'node:os';
import { SQSClient } from '@aws-sdk/client-sqs';
import { type CapacityTally, capacityDelta, installCapacityMeter } from '#bench/lib/capacity-meter.ts';
import { captureProfile, profiled } from '#bench/lib/profile.ts';
import { profileLine, profileTimes } from '#bench/lib/profile-analysis.ts';
import {
  busyText,
  createStores,
  drainPollers,
  pausePollers,
  pollersText,
  type QueueDepth,
  queueDepth,
  READ_OPERATIONS,
  sumOf,
  type ThreadsBusy,
  threadsBusy,
  WRITE_OPERATIONS,
} from '#bench/lib/runtime-probes.ts';
import { cpuText, formatNumber, listText, round } from '#bench/lib/stats.ts';
import type { Metric, Result, Scenario, ScenarioOptions } from '#bench/scenario.ts';
import { REGION } from '#local/resources.ts';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { QUEUES } from '#shared/catalog/queues.ts';
import {
  countBy,
  credentials,
  DEFAULT_COUNT,
  DRAIN_LIMIT_MS,
  type Drain,
  drain,
  earlierFigure,
  type Fill,
  fill,
  INGEST_BATCH_SIZE,
  type Journey,
  LOG_LEVEL,
  PER_STORE_BUDGET,
  POLL_MS,
  perEvent,
  plan,
  SEED,
} from './worker-phases.ts';

/** Events of the profiled drain whose summary the report carries (a second drain, after the measured one). */
const PROFILE_COUNT = 1_000;

/**
 * For the report, a profile of the handlers' thread in a second, smaller drain of the same mix (new source ids, the
 * same shoppers): not of the measured drain, which the profiler would slow.
 */
const profilePass = async (
  runtime: LocalRuntime,
  sqs: SQSClient,
  apiKeys: readonly string[],
  options: ScenarioOptions,
): Promise<{ events: number; file: string; summary: string }> => {
  options.log(`worker: profiling a drain of ${PROFILE_COUNT} more events (not measured)`);
  await pausePollers(runtime)();
  const refilled = await fill(runtime, apiKeys, plan(PROFILE_COUNT, apiKeys.length, 'wp'), options.concurrency);
  const queued = (await queueDepth(sqs, runtime.queueUrls.ingest)).total;
  const { result, profile, file } = await captureProfile('worker-profile', () =>
    drain(runtime, sqs, queued, options.log),
  );
  const events = result.applied;
  const accepted = refilled.outcomes.accepted ?? 0;
  if (accepted !== PROFILE_COUNT || !result.complete) {
    options.log(`worker: the profiled drain took ${accepted} of ${PROFILE_COUNT} events and applied ${events}`);
  }
  return {
    events,
    file: file.split('/').pop() ?? file,
    summary: profileLine(profileTimes(profile), { per: events || 1 }),
  };
};

const report = (
  options: ScenarioOptions,
  m: {
    journeys: readonly Journey[];
    stores: number;
    filled: Fill;
    depthAfterFill: QueueDepth;
    drained: Drain;
    capacity: CapacityTally;
    /** How busy the runtime's two threads were while it drained. */
    busy: ThreadsBusy;
    /** The profile of a second drain, summarised. */
    profile: { events: number; file: string; summary: string };
  },
): Result => {
  const { journeys, filled, drained } = m;
  const events = journeys.flatMap((j) => j.events);
  const sent = countBy(events, (e) => e.endpoint);
  const applied = drained.applied;
  const per = (n: number) => (applied > 0 ? n / applied : Number.NaN);
  const reads = sumOf(drained.dynamodbCalls, READ_OPERATIONS);
  const writes = sumOf(drained.dynamodbCalls, WRITE_OPERATIONS);
  const schedulerCalls = Object.values(drained.schedulerCalls).reduce((a, b) => a + b, 0);
  const timerSetters = (sent['carts/create'] ?? 0) + (sent['carts/update'] ?? 0) + (sent['checkouts/create'] ?? 0);
  const seconds = drained.elapsedMs / 1000;
  const incomplete = drained.complete ? '' : ' (incomplete)';

  const metrics: Metric[] = [
    {
      key: 'eventsPerSecond',
      label: `Events applied/s, mixed endpoints${incomplete}`,
      value: drained.perSecond,
      unit: '/s',
    },
    { key: 'drainSeconds', label: `Time to apply ${applied} events${incomplete}`, value: seconds, unit: 's' },
    { key: 'cpuPerEvent', label: 'CPU per applied event', value: per(drained.cpu.processMs), unit: 'ms' },
    { key: 'readsPerEvent', label: 'DynamoDB reads per applied event', value: per(reads), unit: '' },
    { key: 'writesPerEvent', label: 'DynamoDB writes per applied event', value: per(writes), unit: '' },
    {
      key: 'schedulerPerEvent',
      label: 'Scheduler calls per applied event',
      value: per(schedulerCalls),
      unit: '',
    },
  ];
  const ingestRate = earlierFigure(options, 'ingest', 'eventsPerSecond');
  if (ingestRate !== undefined) {
    metrics.push({
      key: 'ratioToIngest',
      label: 'Ratio applied/s ÷ ingest gateway accepted events/s',
      value: drained.perSecond / ingestRate,
      unit: '',
    });
  }
  const ingestDrain = earlierFigure(options, 'ingest', 'drainPerSecond');
  if (ingestDrain !== undefined) {
    metrics.push({
      key: 'ratioToIngestDrain',
      label: 'Ratio applied/s ÷ ingest drain applied/s (customers/create only)',
      value: drained.perSecond / ingestDrain,
      unit: '',
    });
  }

  const notes = [
    `Local runtime in memory, one process on ${availableParallelism()} cores: the worker, dynalite, fauxqs and the Scheduler emulator share one event loop; the ingest poller hands batches of ${INGEST_BATCH_SIZE ?? '?'} (FIFO, one group per store + entity) to concurrent invocations, ${pollersText(drainPollers())}.`,
    `Sent ${events.length} events as ${journeys.length} seeded journeys (${listText(countBy(journeys, (j) => j.kind))}) over ${m.stores} stores, all accepted: ${listText(sent)}.`,
    `Fill (not measured, pollers paused): ${options.concurrency} journeys at a time over fetch, each journey's events in order, at most ${PER_STORE_BUDGET} requests per store per second; ${round(filled.elapsedMs / 1000, 1)} s (${formatNumber(events.length / (filled.elapsedMs / 1000))} events/s), ingest queue depth after: ${m.depthAfterFill.total}.`,
    drained.complete
      ? `Worker: pollers resumed with ${drained.queued} queued; the ingest queue was empty after ${round(seconds, 2)} s (read twice, ${POLL_MS} ms apart), at most ${drained.maxInFlight} messages in flight; DLQs: ingest ${drained.dlq}, timers ${drained.timersDlq}.`
      : `Worker: INCOMPLETE, stopped waiting at ${DRAIN_LIMIT_MS / 1000} s with ${drained.left} of ${drained.queued} events left (${drained.leftInFlight} in flight: a failed message waits out the ${QUEUES.ingest.visibilityTimeoutSeconds} s visibility timeout before its retry); DLQs: ingest ${drained.dlq}, timers ${drained.timersDlq}. Run with POWERTOOLS_LOG_LEVEL=WARN to see the worker's warnings.`,
    `DynamoDB operations per applied event: ${listText(perEvent(drained.dynamodbCalls, applied || 1), formatNumber)} (a transaction counts once).`,
    `DynamoDB calls per applied event by operation and item kind (the upper-case words of its partition key; a batch names every kind it holds): ${topText(perEvent(m.capacity.callsByKind, applied || 1))}; capacity units per applied event: ${formatNumber(per(m.capacity.writeUnits))} WRU (${topText(perEvent(writeUnitsOf(m.capacity), applied || 1))}), ${formatNumber(per(m.capacity.readUnits))} RRU.`,
    `Scheduler calls per applied event: ${schedulerCalls === 0 ? 'none' : listText(perEvent(drained.schedulerCalls, applied || 1), formatNumber)}; ${formatNumber(per(timerSetters))} of the events set a timer (carts/*, checkouts/create).`,
    `CPU, in cores, while the worker drained: ${cpuText(drained.cpu)}; ${busyText(m.busy)}.${
      drained.cpu.otherCores >= 0.25
        ? ' Other processes took a noticeable share of the CPU: the rate is disturbed (the CPU per event much less); run again on a quiet machine.'
        : ''
    }`,
    `Profile of the handlers' thread in a second drain of ${m.profile.events} events (not measured; ${m.profile.file}): ${m.profile.summary}.`,
  ];
  if (ingestRate !== undefined) {
    notes.push(
      `The ingest scenario of this run accepted ${formatNumber(ingestRate)} events/s at the gateway${
        ingestDrain === undefined
          ? ''
          : ` and its worker drain applied ${formatNumber(ingestDrain)}/s (customers/create only)`
      }.`,
    );
  }

  return {
    scenario: 'worker',
    title: 'Worker throughput with mixed endpoints (ingest queue → apply)',
    metrics,
    notes,
    details: {
      plan: { seed: SEED, stores: m.stores, journeys: countBy(journeys, (j) => j.kind), sent },
      profile: { events: m.profile.events, summary: m.profile.summary },
      fill: {
        elapsedMs: round(filled.elapsedMs),
        requests: filled.requests,
        outcomes: filled.outcomes,
        latencyMs: {
          p50: round(filled.latencyMs.p50),
          p99: round(filled.latencyMs.p99),
          max: round(filled.latencyMs.max),
        },
        budgetWaits: filled.budgetWaits,
        queueDepthAfter: m.depthAfterFill,
      },
      drain: {
        ...drained,
        elapsedMs: round(drained.elapsedMs),
        perSecond: round(drained.perSecond, 1),
        reads,
        writes,
        dynamodbPerEvent: perEvent(drained.dynamodbCalls, applied || 1),
        schedulerPerEvent: perEvent(drained.schedulerCalls, applied || 1),
        capacity: {
          writeUnitsPerEvent: round(per(m.capacity.writeUnits), 3),
          readUnitsPerEvent: round(per(m.capacity.readUnits), 3),
          unitsPerEvent: perEvent(m.capacity.units, applied || 1),
          callsByKindPerEvent: perEvent(m.capacity.callsByKind, applied || 1),
          batchItemsByKindPerEvent: perEvent(m.capacity.batchItemsByKind, applied || 1),
        },
      },
    },
  };
};

/** The largest entries of a per-event tally, most first (the rest summed), for a note. */
const topText = (entries: Record<string, number>, shown = 14): string => {
  const sorted = Object.entries(entries).sort((a, b) => b[1] - a[1]);
  const rest = sorted.slice(shown).reduce((sum, [, n]) => sum + n, 0);
  const text = sorted.slice(0, shown).map(([name, n]) => `${name} ${formatNumber(n)}`);
  return rest > 0 ? `${text.join(', ')}, others ${formatNumber(rest)}` : text.join(', ');
};

/** The capacity meter's write units by operation and item kind. */
const WRITE_OPS = ['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems'];
const writeUnitsOf = (capacity: CapacityTally): Record<string, number> =>
  Object.fromEntries(Object.entries(capacity.units).filter(([kind]) => WRITE_OPS.includes(kind.split(' ')[0] ?? '')));

export const worker: Scenario = {
  name: 'worker',
  description: 'Ingest worker: events applied/s from the queue with a mix of endpoints; DynamoDB ops per event',
  async run(options) {
    const { log } = options;
    const count = options.count ?? DEFAULT_COUNT;
    log('worker: starting the local runtime (in memory)');
    const runtime = await startLocalRuntime({ logLevel: LOG_LEVEL, pollerConcurrency: drainPollers() });
    // The queue is filled first, then the worker measured alone.
    const pollsOver = pausePollers(runtime);
    const sqs = new SQSClient({ region: REGION, credentials, endpoint: runtime.urls.sqs });
    try {
      log(`worker: creating ${options.stores} stores`);
      const apiKeys = await createStores(options.stores);
      // A receive already waiting when the pollers paused may still pick up a message: let it time out (1 s poll).
      await pollsOver();

      const journeys = plan(count, apiKeys.length);
      log(`worker: sending ${count} events (${journeys.length} journeys) over ${apiKeys.length} stores`);
      const filled = await fill(runtime, apiKeys, journeys, options.concurrency);
      const accepted = filled.outcomes.accepted ?? 0;
      if (accepted !== count) {
        throw new Error(
          `worker: ${count - accepted} of ${count} events were not accepted (${listText(filled.outcomes)}); first: ${filled.samples.join(' | ')}`,
        );
      }
      const depthAfterFill = await queueDepth(sqs, runtime.queueUrls.ingest);
      if (depthAfterFill.total !== count) {
        log(`worker: warning, ${depthAfterFill.total} messages queued for ${count} accepted events`);
      }

      log(`worker: draining ${depthAfterFill.total} queued events (at most ${DRAIN_LIMIT_MS / 1000} s)`);
      const meter = installCapacityMeter();
      const before = meter.read();
      const drainBusy = threadsBusy(runtime);
      let busy: ReturnType<typeof drainBusy> | undefined;
      const drained = await profiled(options.profile, 'worker-drain', () =>
        drain(runtime, sqs, depthAfterFill.total, log, () => {
          busy = drainBusy();
        }),
      );
      busy ??= drainBusy();
      const capacity = capacityDelta(before, meter.read());
      meter.remove();
      const profile = await profilePass(runtime, sqs, apiKeys, options);
      return report(options, {
        journeys,
        stores: apiKeys.length,
        filled,
        depthAfterFill,
        drained,
        capacity,
        busy,
        profile,
      });
    } finally {
      sqs.destroy();
      await runtime.stop();
    }
  },
};
