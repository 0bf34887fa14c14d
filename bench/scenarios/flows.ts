/**
 * Flows scenario: how many flow triggers per second the flow worker turns into sent emails, and the time from a
 * trigger to its email accepted by the local SES, for `--count` (default 1,000) concurrent runs. One local runtime (in
 * memory, random ports), one process:
 *
 * 1. `--stores` stores (at most 8) each create the `order_paid` preset flow through `POST /api/v1/flows` (one email,
 *    the order confirmation template with three lines: a real LiquidJS render per run);
 * 2. drain: with the queue pollers paused, `--count` `order_paid` triggers are fired through the same hand-off the
 *    ingest worker uses (trigger recorded, flows-queue message sent), one recipient each; the pollers resume and the
 *    flow worker evaluates, starts and mails every run. Triggers/s = count ÷ (resume → the last email accepted);
 * 3. live: with the pollers running, another `--count` triggers are fired as fast as `--concurrency` allows, so about
 *    `--count` runs are in flight at once; each run's time is its trigger's `at` to its `emailed` event (stamped right
 *    after SES answered the SendEmail with a message id): p50 and p99.
 *
 * 4. idle: `IDLE_SAMPLES` triggers fired one at a time, each waited for: the path's own time (queue, evaluation, render,
 *    SES) without the queueing behind other runs.
 *
 * Every run must end `completed` with one email: a run missing or in another state is reported and fails the check.
 */
import { SQSClient } from '@aws-sdk/client-sqs';
import { queuesDrained } from '#bench/lib/api.ts';
import { capacityDelta, installCapacityMeter } from '#bench/lib/capacity-meter.ts';
import { captureProfile, profiled } from '#bench/lib/profile.ts';
import { profileLine, profileTimes } from '#bench/lib/profile-analysis.ts';
import {
  busyText,
  countDelta,
  drainPollers,
  pausePollers,
  pollersText,
  queueDepth,
  READ_OPERATIONS,
  sumOf,
  threadsBusy,
  WRITE_OPERATIONS,
} from '#bench/lib/runtime-probes.ts';
import {
  cpuMeter,
  cpuText,
  formatNumber,
  type LatencySummary,
  listText,
  round,
  sleep,
  summarize,
} from '#bench/lib/stats.ts';
import type { Metric, Result, Scenario, ScenarioOptions } from '#bench/scenario.ts';
import { REGION } from '#local/resources.ts';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamoFlowRuns } from '#shared/adapters/dynamodb/flow-runs.repositories.ts';
import { queuedFlowTriggers } from '#shared/adapters/sqs/flow-queue.ts';
import { type FlowRun, runIdOf } from '#shared/domain/flows/run.ts';
import type { FlowTrigger } from '#shared/domain/flows/trigger.ts';
import { createStore } from '#shared/domain/stores/manage-stores.ts';
import { storeAdminDeps } from '#shared/wiring/store-admin.ts';

const DEFAULT_COUNT = 1_000;
const MAX_STORES = 8;
const FINISH_LIMIT_MS = 300_000;
const POLL_MS = 100;
/** Triggers of the profiled drain whose summary the report carries (a second drain, after the measured ones). */
const PROFILE_COUNT = 500;
/** Triggers fired one at a time in the idle phase (nearest-rank p99 of 50 samples is the slowest but one). */
const IDLE_SAMPLES = 50;
const IDLE_WAIT_MS = 30_000;
const LOG_LEVEL = process.env.POWERTOOLS_LOG_LEVEL ?? 'ERROR';
const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };

interface BenchStore {
  readonly storeId: string;
  readonly flowId: string;
}

const createFlowStores = async (runtime: LocalRuntime, count: number): Promise<BenchStore[]> => {
  const stores: BenchStore[] = [];
  for (let i = 0; i < count; i++) {
    const { store, apiKey } = await createStore(storeAdminDeps(), {
      name: `Bench flows store ${i + 1}`,
      type: 'direct',
    });
    const headers = { 'content-type': 'application/json', 'x-service-access-token': apiKey };
    // Flow email goes out only from the store's own verified domain (a domain belongs to one store).
    const domain = `bench-${i + 1}.example`;
    const sender = await fetch(`${runtime.urls.main}/api/v1/senders`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ domain }),
    });
    if (sender.status !== 200) throw new Error(`flows: registering ${domain} failed: ${await sender.text()}`);
    const response = await fetch(`${runtime.urls.main}/api/v1/flows`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ preset: 'order_paid', from: { email: `orders@${domain}`, name: 'Bench' } }),
    });
    const text = await response.text();
    const flowId = (JSON.parse(text) as { data?: { id?: string } }).data?.id;
    if (response.status !== 200 || !flowId) throw new Error(`flows: creating the flow failed: ${text.slice(0, 300)}`);
    stores.push({ storeId: store.storeId, flowId });
  }
  return stores;
};

/** The `order_paid` trigger the ingest worker fires for `orders/paid` (same shape), for order `n`. */
const triggerOf = (store: BenchStore, prefix: string, n: number): FlowTrigger => {
  const orderId = `${prefix}-o${n}`;
  return {
    id: `event#${prefix}-${n}#order_paid`,
    storeId: store.storeId,
    kind: 'order_paid',
    subject: { type: 'order', id: orderId },
    contact: { email: `${prefix}${n}@bench.example`, customerId: `${prefix}-c${n}` },
    cause: { endpoint: 'orders/paid', sourceId: `${prefix}-${n}` },
    context: {
      order: {
        id: orderId,
        status: 'paid',
        name: `#${n}`,
        total_price: '137.70',
        currency: 'EUR',
        line_items: [
          {
            id: 'l1',
            product_id: 'p-1',
            title: 'Desk lamp',
            quantity: 2,
            price: '19.90',
            src: 'https://b.example/1.jpg',
          },
          {
            id: 'l2',
            product_id: 'p-2',
            title: 'Lamp shade',
            quantity: 1,
            price: '48.00',
            src: 'https://b.example/2.jpg',
          },
          { id: 'l3', product_id: 'p-3', title: 'Bulb', quantity: 5, price: '9.98' },
        ],
      },
    },
    at: Date.now(),
  };
};

/** Fires `count` triggers with `concurrency` callers; answers each trigger as fired (its `at` is the fire time). */
const fireAll = async (stores: readonly BenchStore[], prefix: string, count: number, concurrency: number) => {
  const triggers = queuedFlowTriggers();
  const fired: { trigger: FlowTrigger; flowId: string }[] = new Array(count);
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const n = next++;
      const store = stores[n % stores.length] as BenchStore;
      const trigger = triggerOf(store, prefix, n);
      await triggers.fire(trigger);
      fired[n] = { trigger, flowId: store.flowId };
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
  return { fired, elapsedMs: performance.now() - started };
};

/**
 * Waits until the flows queue and the SES events queue stay empty (an emailed trigger's cost includes what its SES
 * delivery event writes), then reads every run.
 */
const finishedRuns = async (
  sqs: SQSClient,
  runtime: LocalRuntime,
  fired: { trigger: FlowTrigger; flowId: string }[],
) => {
  const deadline = Date.now() + FINISH_LIMIT_MS;
  let quiet = 0;
  while (quiet < 3) {
    if (Date.now() > deadline) throw new Error(`flows: the flows queue did not drain in ${FINISH_LIMIT_MS / 1000} s`);
    const [flows, emailEvents] = await Promise.all([
      queueDepth(sqs, runtime.queueUrls.flows),
      queueDepth(sqs, runtime.queueUrls.emailEvents),
    ]);
    quiet = flows.total === 0 && emailEvents.total === 0 ? quiet + 1 : 0;
    await sleep(POLL_MS);
  }
  const runs = dynamoFlowRuns();
  const found = new Map<string, FlowRun>();
  const byStore = new Map<string, string[]>();
  for (const { trigger, flowId } of fired) {
    const list = byStore.get(trigger.storeId) ?? [];
    list.push(runIdOf(trigger.storeId, flowId, trigger.id));
    byStore.set(trigger.storeId, list);
  }
  for (const [storeId, ids] of byStore) {
    for (let i = 0; i < ids.length; i += 100) {
      for (const run of await runs.getMany(storeId, ids.slice(i, i + 100))) found.set(run.id, run);
    }
  }
  return fired.map(({ trigger, flowId }) => ({
    trigger,
    run: found.get(runIdOf(trigger.storeId, flowId, trigger.id)),
  }));
};

/** Fires one trigger at a time and waits for its run to finish; answers trigger `at` → `emailed` per sample. */
const idleSamples = async (stores: readonly BenchStore[], count: number) => {
  const triggers = queuedFlowTriggers();
  const runs = dynamoFlowRuns();
  const latencies: number[] = [];
  let failures = 0;
  for (let n = 0; n < count; n++) {
    const store = stores[n % stores.length] as BenchStore;
    const trigger = triggerOf(store, 'fi', n);
    await triggers.fire(trigger);
    const runId = runIdOf(store.storeId, store.flowId, trigger.id);
    const deadline = Date.now() + IDLE_WAIT_MS;
    let emailedAt: number | undefined;
    while (emailedAt === undefined && Date.now() < deadline) {
      const run = await runs.get(store.storeId, runId);
      emailedAt = run?.status === 'completed' ? run.events.find((e) => e.type === 'emailed')?.at : undefined;
      if (emailedAt === undefined) await sleep(5);
    }
    if (emailedAt === undefined) failures++;
    else latencies.push(emailedAt - trigger.at);
  }
  return { latency: summarize(latencies), failures };
};

interface PhaseResult {
  readonly completed: number;
  readonly problems: Record<string, number>;
  /** Trigger `at` → `emailed` event, ms. */
  readonly latency: LatencySummary;
  /** Epoch ms of the last email. */
  readonly lastEmailAt: number;
}

const phaseResult = (outcomes: Awaited<ReturnType<typeof finishedRuns>>): PhaseResult => {
  const latencies: number[] = [];
  const problems: Record<string, number> = {};
  let lastEmailAt = 0;
  for (const { trigger, run } of outcomes) {
    const emailed = run?.events.filter((e) => e.type === 'emailed') ?? [];
    const problem = !run ? 'missing' : run.status !== 'completed' ? run.status : emailed.length !== 1 ? 'emails' : '';
    if (problem) {
      problems[problem] = (problems[problem] ?? 0) + 1;
      continue;
    }
    const at = emailed[0]?.at ?? 0;
    latencies.push(at - trigger.at);
    lastEmailAt = Math.max(lastEmailAt, at);
  }
  return { completed: latencies.length, problems, latency: summarize(latencies), lastEmailAt };
};

export const flows: Scenario = {
  name: 'flows',
  description: 'Flow triggers/s to sent email and trigger-to-SES time for --count (default 1,000) concurrent runs',
  async run(options: ScenarioOptions): Promise<Result> {
    const { log } = options;
    const count = options.count ?? DEFAULT_COUNT;
    const storeCount = Math.min(MAX_STORES, options.stores);
    log('flows: starting the local runtime (in memory)');
    const runtime = await startLocalRuntime({ logLevel: LOG_LEVEL, pollerConcurrency: drainPollers() });
    const sqs = new SQSClient({ region: REGION, credentials, endpoint: runtime.urls.sqs });
    const meter = installCapacityMeter();
    try {
      log(`flows: ${storeCount} stores, each with the order_paid preset flow`);
      const stores = await createFlowStores(runtime, storeCount);

      // A receive already waiting when the pollers paused may still take a message: it times out first (1 s poll).
      await pausePollers(runtime)();
      log(`flows: firing ${count} order_paid triggers (pollers paused)`);
      const drainFire = await fireAll(stores, 'fd', count, options.concurrency);
      const callsBefore = runtime.dynamodbCalls();
      const capacityBefore = meter.read();
      const resumedAt = Date.now();
      // How busy the process and its two threads were: the drain waits on DynamoDB round trips more than on the CPU.
      const drainCpu = cpuMeter();
      const drainBusy = threadsBusy(runtime);
      runtime.setPollersPaused(false);
      log('flows: draining (flow worker evaluates, starts and mails every run)');
      const drain = phaseResult(
        await profiled(options.profile, 'flows-drain', () => finishedRuns(sqs, runtime, drainFire.fired)),
      );
      const cpu = drainCpu();
      const busy = drainBusy();
      // The runs' and SES events' counts are written by the counters worker seconds later: its calls are theirs too.
      await queuesDrained(runtime, ['counters'], 15_000);
      const calls = countDelta(callsBefore, runtime.dynamodbCalls());
      const capacity = capacityDelta(capacityBefore, meter.read());
      /** Per trigger, by operation and item kind (calls; a batch or transaction is one call), most first. */
      const perTrigger = (counts: Record<string, number>) =>
        Object.fromEntries(
          Object.entries(counts)
            .sort(([, a], [, b]) => b - a)
            .map(([name, n]) => [name, round(n / count, 2)]),
        );
      const drainMs = drain.lastEmailAt - resumedAt;
      const perSecond = drain.completed / (drainMs / 1000);

      log(`flows: live phase, ${count} triggers fired while the worker runs`);
      const liveFire = await fireAll(stores, 'fl', count, options.concurrency);
      const live = phaseResult(await finishedRuns(sqs, runtime, liveFire.fired));
      log(`flows: idle phase, ${IDLE_SAMPLES} triggers one at a time`);
      const idle = await idleSamples(stores, IDLE_SAMPLES);
      // For the report, a profile of a second, smaller drain: not the measured one, which the profiler would slow.
      log(`flows: profiling a drain of ${PROFILE_COUNT} more triggers (not measured)`);
      await pausePollers(runtime)();
      const profileFire = await fireAll(stores, 'fp', PROFILE_COUNT, options.concurrency);
      const profiledDrain = await captureProfile('flows-profile', async () => {
        runtime.setPollersPaused(false);
        return phaseResult(await finishedRuns(sqs, runtime, profileFire.fired));
      });
      const profile = profileLine(profileTimes(profiledDrain.profile), { per: profiledDrain.result.completed || 1 });
      const [flowsDlq, timersDlq] = await Promise.all([
        queueDepth(sqs, runtime.dlqUrls.flows),
        queueDepth(sqs, runtime.dlqUrls.timers),
      ]);

      const allDone =
        drain.completed === count &&
        live.completed === count &&
        profiledDrain.result.completed === PROFILE_COUNT &&
        idle.failures === 0 &&
        flowsDlq.total === 0;
      const metrics: Metric[] = [
        {
          key: 'triggersPerSecond',
          label: 'flow triggers processed to email (drain)',
          value: round(perSecond, 1),
          unit: '/s',
        },
        {
          key: 'triggerToEmailP50',
          label: `trigger → email accepted, p50 (${count} concurrent)`,
          value: round(live.latency.p50),
          unit: 'ms',
        },
        {
          key: 'triggerToEmailP99',
          label: `trigger → email accepted, p99 (${count} concurrent)`,
          value: round(live.latency.p99),
          unit: 'ms',
        },
        {
          key: 'idleTriggerToEmailP50',
          label: 'trigger → email accepted, p50 (one at a time)',
          value: round(idle.latency.p50),
          unit: 'ms',
        },
        {
          key: 'idleTriggerToEmailP99',
          label: 'trigger → email accepted, p99 (one at a time)',
          value: round(idle.latency.p99),
          unit: 'ms',
        },
        {
          key: 'runsCompleted',
          label: 'runs completed with one email (drain and live)',
          value: drain.completed + live.completed,
          unit: 'runs',
          target: { op: '>=', value: 2 * count },
        },
      ];
      const notes = [
        `${count} triggers per phase over ${stores.length} stores, one recipient each; the order_paid preset (one LiquidJS-rendered email, List-Unsubscribe headers, SES tags).`,
        `Drain: ${formatNumber(drain.completed)} runs from resume to last email in ${formatNumber(round(drainMs))} ms, ${pollersText(drainPollers())}; DynamoDB ${formatNumber(round(sumOf(calls, WRITE_OPERATIONS) / count, 1))} writes and ${formatNumber(round(sumOf(calls, READ_OPERATIONS) / count, 1))} reads per trigger.`,
        `CPU, in cores, from the resume until the flows and email-events queues were empty: ${cpuText(cpu)}; ${busyText(busy)}.`,
        `Live: triggers fired in ${formatNumber(round(liveFire.elapsedMs))} ms with ${options.concurrency} callers; the time includes waiting in the flows queue behind the other runs.`,
        `Idle: ${IDLE_SAMPLES} triggers one at a time (${idle.failures} not finished within ${IDLE_WAIT_MS / 1000} s).`,
        `Profile of the handlers' thread in a second drain of ${PROFILE_COUNT} triggers (not measured; ${profiledDrain.file.split('/').pop()}): ${profile}.`,
        ...(allDone
          ? []
          : [
              `Problems: drain ${listText(drain.problems)}; live ${listText(live.problems)}; profiled ${listText(profiledDrain.result.problems)}; flows DLQ ${flowsDlq.total}.`,
            ]),
      ];
      return {
        scenario: 'flows',
        title: 'Flow engine: triggers to emails',
        metrics,
        notes,
        details: {
          count,
          stores: stores.length,
          drain: {
            ...drain,
            elapsedMs: round(drainMs),
            fireMs: round(drainFire.elapsedMs),
            cpu,
            busy,
            dynamodbCalls: calls,
            callsPerTriggerByKind: perTrigger(capacity.callsByKind),
            batchItemsPerTriggerByKind: perTrigger(capacity.batchItemsByKind),
            unitsPerTriggerByKind: perTrigger(capacity.units),
            capacityUnitsPerTrigger: {
              read: round(capacity.readUnits / count, 2),
              write: round(capacity.writeUnits / count, 2),
            },
          },
          live: { ...live, fireMs: round(liveFire.elapsedMs) },
          idle,
          profile: { triggers: profiledDrain.result.completed, summary: profile },
          dlq: { flows: flowsDlq.total, timers: timersDlq.total },
        },
      };
    } finally {
      meter.remove();
      sqs.destroy();
      await runtime.stop();
    }
  },
};
