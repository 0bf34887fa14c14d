/**
 * Noisy-neighbour scenario: `--stores` victim stores (default 20) run a normal mix while one store attacks
 * the shared deployment, and the victims' latencies are compared with and without it. One local runtime, one process:
 *
 * 1. every victim registers a sending domain and creates the `order_paid` preset flow (a rendered transactional email);
 * 2. a warm-up of 8 s of the victims' load, not measured; then phase A, `--seconds` long (default 20): each victim
 *    sends a `customers/create` and an `orders/paid` every second;
 * 3. phase B, as long: the same victim load while the attacker sends, at its rate limits, poison events (updates that
 *    grow one customer past its extra-property budget, and fields over the per-event budget), `customers/create`
 *    events into fifty flows that start with a 90-day wait (a flood of waits), `flow/notify` events into a flow whose
 *    template is the heaviest one the service accepts (three nested 1,000-item ranges, stopped by the render limit),
 *    and 2,000-recipient bulk sends;
 * 4. after each phase, every victim event's applied latency (its customer's `updatedAt` less the event record's
 *    `acceptedAt`) and every victim order's trigger-to-email latency (the run's `emailed` event less the trigger's `at`)
 *    are read back; the metrics are the p99 ratios B ÷ A (target ≤ 1.5), and the attacker's own figures.
 */

import { monitorEventLoopDelay } from 'node:perf_hooks';
import { ListSchedulesCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { SQSClient } from '@aws-sdk/client-sqs';
import { apiCall, queuesDrained } from '#bench/lib/api.ts';
import { profiled } from '#bench/lib/profile.ts';
import { countDelta, queueDepth, threadsBusy } from '#bench/lib/runtime-probes.ts';
import { type Stall, watchStalls } from '#bench/lib/stall-watch.ts';
import { formatNumber, round, sleep, summarize } from '#bench/lib/stats.ts';
import type { Metric, Result, Scenario, ScenarioOptions } from '#bench/scenario.ts';
import { REGION } from '#local/resources.ts';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamoCustomerRepository } from '#shared/adapters/dynamodb/customer.repository.ts';
import { dynamoEventLog } from '#shared/adapters/dynamodb/event-log.repository.ts';
import { dynamoFlowRuns } from '#shared/adapters/dynamodb/flow-runs.repositories.ts';
import { dynamoStoreRepository } from '#shared/adapters/dynamodb/store.repository.ts';
import { QUEUES, type QueueName } from '#shared/catalog/queues.ts';
import { ENV } from '#shared/config.ts';
import { runIdOf } from '#shared/domain/flows/run.ts';
import { createStore } from '#shared/domain/stores/manage-stores.ts';
import { storeAdminDeps } from '#shared/wiring/store-admin.ts';

const DEFAULT_STORES = 20;
const DEFAULT_SECONDS = 20;
/** A pause after a phase's queues drained, for the delivery events of its last emails to arrive. */
const SETTLE_MS = 2000;
/** The watchers (stalls, queue depths) start this long before a phase's load, so their own start is not measured. */
const WATCH_LEAD_MS = 1000;
/** Emails a second the deployment's SES account sends (the victims' order mail needs one per store a second). */
const SES_RATE = 50;
/** Flow runs a store may start per second (the operator setting `storeFlowRunsPerSecond`). */
const RUN_BUDGET = 5;
/** Bulk recipients a store may have accepted per second (the operator setting `storeBulkRecipientsPerSecond`). */
const BULK_BUDGET = 200;
/** Batches in flight per queue consumer. */
const POLLER_CONCURRENCY = 8;
const DRAIN_MS = 120_000;
const WARM_UP_SECONDS = 8;
/** How long the scenario waits for the runtime to stop (the rest is left to the process's exit). */
const STOP_WAIT_MS = 3_000;
const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };

interface Tenant {
  readonly storeId: string;
  readonly apiKey: string;
  readonly domain: string;
}

interface Sent {
  readonly storeId: string;
  readonly sourceId: string;
  readonly customerId?: string;
  readonly flowId?: string;
}

/** A setup call, retried while the store's management rate limit answers 429. */
const setup = async (url: string, apiKey: string, method: string, body?: unknown) => {
  for (let tries = 0; ; tries++) {
    const answer = await apiCall(url, apiKey, method, body);
    if (answer.status !== 429 || tries >= 20) return answer;
    await sleep(1000);
  }
};

const tenant = async (runtime: LocalRuntime, name: string): Promise<Tenant> => {
  const { store, apiKey } = await createStore(storeAdminDeps(), { name, type: 'direct' });
  const domain = `${store.storeId.toLowerCase().replace(/_/g, '-')}.example`;
  const sender = await setup(`${runtime.urls.main}/api/v1/senders`, apiKey, 'POST', { domain });
  if (sender.status !== 200) throw new Error(`noisy: registering ${domain}: ${JSON.stringify(sender.body)}`);
  return { storeId: store.storeId, apiKey, domain };
};

const flowIdOf = (answer: { status: number; body: Record<string, unknown> }) => {
  const id = (answer.body.data as { id?: string } | undefined)?.id;
  if (answer.status !== 200 || !id) throw new Error(`noisy: creating a flow: ${JSON.stringify(answer.body)}`);
  return id;
};

let sequence = 0;
const nextId = (prefix: string) => `${prefix}-${(++sequence).toString(36)}-${Date.now().toString(36)}`;

const event = (runtime: LocalRuntime, apiKey: string, endpoint: string, data: Record<string, unknown>) => {
  const sourceId = nextId('nz');
  return apiCall(`${runtime.urls.main}/api/v1/events`, apiKey, 'POST', { endpoint, source_id: sourceId, data }).then(
    (answer) => ({ sourceId, status: answer.status }),
  );
};

/** Every queue's depth (visible + in flight) once a second until `stop()`: where a backlog builds, and when. */
const sampleQueues = (runtime: LocalRuntime) => {
  const sqs = new SQSClient({ region: REGION, endpoint: runtime.urls.sqs, credentials });
  const rows: Record<string, number[]> = {};
  let running = true;
  const loop = (async () => {
    while (running) {
      await Promise.all(
        (Object.keys(QUEUES) as QueueName[]).map(async (name) => {
          const depth = await queueDepth(sqs, runtime.queueUrls[name]).catch(() => undefined);
          if (!depth) return;
          const row = rows[name] ?? [];
          row.push(depth.total);
          rows[name] = row;
        }),
      );
      await sleep(1000);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      sqs.destroy();
      return Object.fromEntries(Object.entries(rows).filter(([, row]) => row.some((n) => n > 0)));
    },
  };
};

/**
 * What the runtime did so far: DynamoDB calls by operation, handler invocations and their wall ms by function, and the
 * process's CPU time (every thread: the runtime, its emulators and the load generator share this process).
 */
const counters = (runtime: LocalRuntime) => ({
  dynamodb: runtime.dynamodbCalls(),
  invocations: runtime.invocations(),
  cpu: process.cpuUsage(),
});

/**
 * `counters` at a phase's start, how busy the two threads are from then on, and this thread's event loop delay
 * (10 ms resolution).
 */
const work = (runtime: LocalRuntime) => {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  return { ...counters(runtime), busy: threadsBusy(runtime), delay };
};

/**
 * What the runtime did during a phase's load seconds (not its drain): where phase B's extra time goes, e.g. which
 * functions the attacker's admitted work runs in, and how many more DynamoDB calls it makes.
 */
const workSince = (runtime: LocalRuntime, before: ReturnType<typeof work>) => {
  const now = counters(runtime);
  const functions: Record<string, { count: number; ms: number }> = {};
  for (const [name, { count, ms }] of Object.entries(now.invocations)) {
    const was = before.invocations[name] ?? { count: 0, ms: 0 };
    if (count > was.count) functions[name] = { count: count - was.count, ms: Math.round(ms - was.ms) };
  }
  const cpuMs = (now.cpu.user + now.cpu.system - before.cpu.user - before.cpu.system) / 1000;
  before.delay.disable();
  const ms = (ns: number) => round(ns / 1e6, 1);
  return {
    dynamodb: countDelta(before.dynamodb, now.dynamodb),
    functions,
    loopDelayMs: {
      p50: ms(before.delay.percentile(50)),
      p99: ms(before.delay.percentile(99)),
      max: ms(before.delay.max),
    },
    cpuMs: Math.round(cpuMs),
    busy: before.busy(),
  };
};

/** Runs `tick` once a second for `seconds`, without waiting for the previous tick. */
const everySecond = async (seconds: number, tick: (second: number) => Promise<unknown>) => {
  const pending: Promise<unknown>[] = [];
  for (let s = 0; s < seconds; s++) {
    pending.push(tick(s).catch(() => undefined));
    await sleep(1000);
  }
  await Promise.all(pending);
};

/**
 * Waits until the previous load's work is done, its emails' delivery events too (the local SES sends them a moment
 * after each email): left over, they ran in the first seconds of the next phase and raised its first latencies.
 */
const settled = async (runtime: LocalRuntime) => {
  await queuesDrained(runtime, ['ingest', 'flows', 'sends'], DRAIN_MS);
  await sleep(SETTLE_MS);
  await queuesDrained(runtime, ['ingest', 'flows', 'sends', 'emailEvents', 'webhooks'], DRAIN_MS);
};

/**
 * One victim second: a new customer and a paid order (the order_paid flow mails it). Each victim sends at its own
 * point of the second (victim i at i/n of it), as independent stores do: all of them in the same instant made every
 * second one burst of 40 events, whose last ones waited behind the first, and lined that burst up exactly with the
 * attacker's (which fires at the top of each second), so the p99s measured the collision of two synchronized bursts.
 */
const victimLoad = (runtime: LocalRuntime, victims: readonly (Tenant & { flowId: string })[], sent: Sent[]) =>
  Promise.all(
    victims.map(async (victim, i) => {
      await sleep(Math.floor((i * 1000) / victims.length));
      const customerId = nextId('c');
      const created = await event(runtime, victim.apiKey, 'customers/create', {
        id: customerId,
        email: `${customerId}@victim.example`,
        created_at: Math.floor(Date.now() / 1000),
      });
      if (created.status === 200) sent.push({ storeId: victim.storeId, sourceId: created.sourceId, customerId });
      const orderId = nextId('o');
      const paid = await event(runtime, victim.apiKey, 'orders/paid', {
        id: orderId,
        email: `${customerId}@victim.example`,
        customer_id: customerId,
        name: `#${orderId}`,
        order_status: 'paid',
        total_price: '19.90',
        currency: 'EUR',
        line_items: [
          { id: 'l1', product_id: 'p-1', variant_id: 'p-1-v1', title: 'Desk lamp', quantity: 1, price: '19.90' },
        ],
      });
      if (paid.status === 200) sent.push({ storeId: victim.storeId, sourceId: paid.sourceId, flowId: victim.flowId });
    }),
  );

/** A victim event's latency sample: when it started, how long it took, and for an order the steps of its run. */
interface Timed {
  readonly at: number;
  readonly ms: number;
  readonly kind: 'applied' | 'emailed';
  readonly storeId: string;
  readonly steps?: string;
  /** For an order: trigger → its run entered (the ingest worker and the flows queue), ms. */
  readonly entered?: number;
}

/** Reads one victim event's sample from what the service stored: undefined while it is not applied (or mailed) yet. */
const sampleReader = () => {
  const customers = dynamoCustomerRepository();
  const events = dynamoEventLog();
  const runs = dynamoFlowRuns();
  return async (item: Sent): Promise<Timed | undefined> => {
    if (item.customerId) {
      const [customer, record] = await Promise.all([
        customers.get(item.storeId, item.customerId),
        events.recorded(item.storeId, item.sourceId),
      ]);
      if (!customer || !record) return undefined;
      return {
        at: record.acceptedAt,
        ms: customer.updatedAt - record.acceptedAt,
        kind: 'applied',
        storeId: item.storeId,
      };
    }
    if (!item.flowId) return undefined;
    const run = await runs.get(item.storeId, runIdOf(item.storeId, item.flowId, `event#${item.sourceId}#order_paid`));
    const mail = run?.events.find((e) => e.type === 'emailed');
    if (!run || !mail) return undefined;
    const entered = run.events.find((e) => e.type === 'entered');
    return {
      at: run.trigger.at,
      ms: mail.at - run.trigger.at,
      ...(entered ? { entered: entered.at - run.trigger.at } : {}),
      kind: 'emailed',
      storeId: item.storeId,
      steps: run.events.map((e) => `${e.type}+${e.at - run.trigger.at}`).join(' '),
    };
  };
};

/** How much of each phase's start its steady figures leave out (context only). */
const STEADY_AFTER_MS = 2_000;

/** Applied latencies of the customers and trigger-to-email latencies of the orders, read after the drain. */
const latencies = async (sent: readonly Sent[]) => {
  const read = sampleReader();
  const applied: number[] = [];
  const emailed: number[] = [];
  // Each sample with when it started, for the outliers: which stage of which run, and when in the phase.
  const timed: Timed[] = [];
  let missing = 0;
  for (const item of sent) {
    if (!item.customerId && !item.flowId) continue;
    const sample = await read(item);
    if (!sample) {
      missing++;
      continue;
    }
    (sample.kind === 'applied' ? applied : emailed).push(sample.ms);
    timed.push(sample);
  }
  // Per second of the phase and kind, the slowest sample: a steady backlog and a one-off stall look different here.
  const first = Math.min(...timed.map((t) => t.at));
  const bySecond: Record<string, number[]> = { applied: [], emailed: [] };
  for (const t of timed) {
    const second = Math.floor((t.at - first) / 1000);
    const row = bySecond[t.kind] as number[];
    row[second] = Math.max(row[second] ?? 0, t.ms);
  }
  // The same without the phase's first STEADY_AFTER_MS: a start-of-load transient sets a p99 of 400 samples on its own
  // (phase A's was the local pollers' socket cap, fixed on 27 November 2026; phase B's first seconds carry the attack's
  // first bulk send); context beside the targets, which keep every sample.
  const steadyOf = (kind: Timed['kind']) =>
    summarize(timed.filter((t) => t.kind === kind && t.at - first >= STEADY_AFTER_MS).map((t) => t.ms));
  const steady = { applied: steadyOf('applied'), emailed: steadyOf('emailed') };
  // The orders' two stages: trigger → run entered (ingest worker, flows queue) and entered → emailed (render, pacer,
  // SES): which of them a slower phase spends its time in.
  const orders = timed.filter((t) => t.entered !== undefined);
  const stages = {
    entered: summarize(orders.map((t) => t.entered ?? 0)),
    mailed: summarize(orders.map((t) => t.ms - (t.entered ?? 0))),
  };
  const worst = timed.sort((x, y) => y.ms - x.ms).slice(0, 12);
  return { applied: summarize(applied), emailed: summarize(emailed), missing, worst, bySecond, steady, stages };
};

/**
 * Parts of the attack left out (`NOISY_SKIP=bulk,waits`, for diagnosis: what each part costs the victims); the report
 * says so.
 */
const left = (part: 'bulk' | 'waits') => (process.env.NOISY_SKIP ?? '').split(',').includes(part);

/**
 * {@link latencies} read again every half second until every victim event is found applied or mailed, or `limitMs`.
 * Before that, only the phase's last second of victim events is read, every quarter second, until each is found: the
 * victims' work is done in about the order it was sent, and reading all of it on every poll would add its own load.
 */
const victimsDone = async (sent: readonly Sent[], limitMs: number, tail: number) => {
  const deadline = Date.now() + limitMs;
  const read = sampleReader();
  let pending = sent.slice(-tail);
  while (pending.length > 0 && Date.now() < deadline) {
    const found = await Promise.all(pending.map(read));
    pending = pending.filter((_, i) => found[i] === undefined);
    if (pending.length > 0) await sleep(250);
  }
  for (;;) {
    const found = await latencies(sent);
    if (found.missing === 0 || Date.now() >= deadline) return found;
    await sleep(500);
  }
};

/** The attacker's second: poison, waits, an expensive template and a large bulk send. */
const attack =
  (runtime: LocalRuntime, attacker: Tenant, target: string, counts: Record<string, number>) =>
  async (second: number) => {
    const bump = (key: string) => {
      counts[key] = (counts[key] ?? 0) + 1;
    };
    const tasks: Promise<unknown>[] = [];
    // Poison: a new 8 KB field for the same customer each time (its stored budget fails it from the fifth on) and a
    // 200 KB field (refused with 412).
    for (let i = 0; i < 5; i++) {
      tasks.push(
        event(runtime, attacker.apiKey, 'customers/update', { id: target, [`f${second}_${i}`]: 'x'.repeat(8000) }).then(
          (a) => bump(`poison ${a.status}`),
        ),
      );
    }
    tasks.push(
      event(runtime, attacker.apiKey, 'customers/update', { id: target, huge: 'x'.repeat(200_000) }).then((a) =>
        bump(`oversize ${a.status}`),
      ),
    );
    // A flood of waits: each new customer enters the fifty 90-day flows.
    for (let i = 0; i < (left('waits') ? 0 : 20); i++) {
      const id = nextId('w');
      tasks.push(
        event(runtime, attacker.apiKey, 'customers/create', {
          id,
          email: `${id}@attacker.example`,
          created_at: 1,
        }).then((a) => bump(`waits ${a.status}`)),
      );
    }
    // The heaviest template the service accepts, through flow/notify.
    for (let i = 0; i < 5; i++) {
      tasks.push(
        event(runtime, attacker.apiKey, 'flow/notify', {
          email: `${nextId('n')}@attacker.example`,
          custom: { x: 1 },
        }).then((a) => bump(`notify ${a.status}`)),
      );
    }
    // A 2,000-recipient bulk send.
    if (!left('bulk'))
      tasks.push(
        apiCall(`${runtime.urls.sending}/api/v1/sending`, attacker.apiKey, 'POST', {
          subject: 'Hello',
          html: '<p>Hi</p>',
          from: { email: `news@${attacker.domain}`, name: 'Attacker' },
          recipients: Array.from({ length: 2000 }, (_, i) => ({ address: { email: `r${second}-${i}@bulk.example` } })),
        }).then((a) => bump(`bulk ${a.status}`)),
      );
    await Promise.all(tasks);
  };

export const noisy: Scenario = {
  name: 'noisy',
  description: 'victim stores with and without an attacking store: p99 event-to-applied and trigger-to-email ratios',
  async run(options: ScenarioOptions): Promise<Result> {
    const { log } = options;
    const storeCount = options.given.has('stores') ? options.stores : DEFAULT_STORES;
    const seconds = options.given.has('seconds') ? options.seconds : DEFAULT_SECONDS;
    // The deployment's SES rate, as an operator sets it to the account's quota: one this machine can carry with the
    // delivery events each email brings (at the local default of 500/s, the attacker's fair share alone, 250 emails
    // and their events a second, is more than the whole runtime handles on two cores).
    process.env[ENV.sesSendRatePerSecond] ??= String(SES_RATE);
    // Likewise the per-store run budget, as an operator sizes it to the flow workers: this runtime carries about 30
    // runs a second in all and the victims take 20, so the default of 50 would let one store have the whole machine.
    process.env[ENV.storeFlowRunsPerSecond] ??= String(RUN_BUDGET);
    // And the bulk recipients budget, sized to this runtime's table: a 2,000-recipient send is some 4,000 item reads
    // and writes, several times what the embedded DynamoDB serves in a second.
    process.env[ENV.storeBulkRecipientsPerSecond] ??= String(BULK_BUDGET);
    // Deployed, each consumer runs up to its maxConcurrency batches at once; two (the runtime's default) would let one
    // slow batch of the attacker's halve a queue's pace.
    const runtime = await startLocalRuntime({
      logLevel: process.env.POWERTOOLS_LOG_LEVEL ?? 'ERROR',
      pollerConcurrency: POLLER_CONCURRENCY,
    });
    try {
      log(`noisy: ${storeCount} victim stores and one attacker`);
      const victims = await Promise.all(
        Array.from({ length: storeCount }, async (_, i) => {
          const victim = await tenant(runtime, `Noisy victim ${i + 1}`);
          const flowId = flowIdOf(
            await setup(`${runtime.urls.main}/api/v1/flows`, victim.apiKey, 'POST', {
              preset: 'order_paid',
              from: { email: `orders@${victim.domain}`, name: 'Victim' },
            }),
          );
          return { ...victim, flowId };
        }),
      );
      const attacker = await tenant(runtime, 'Noisy attacker');
      const email = {
        type: 'email',
        from: { email: `hi@${attacker.domain}`, name: 'A' },
        subject: 'Hi',
        html: '<p>Hi</p>',
      };
      for (let i = 0; i < 49; i++) {
        flowIdOf(
          await setup(`${runtime.urls.main}/api/v1/flows`, attacker.apiKey, 'POST', {
            name: `Far ${i}`,
            trigger: 'customer_created',
            consent: 'not_unsubscribed',
            steps: [{ type: 'wait', seconds: 90 * 86_400 }, email],
          }),
        );
      }
      const heavy =
        '{% for a in (1..1000) %}{% for b in (1..1000) %}{% for c in (1..1000) %}x{% endfor %}{% endfor %}{% endfor %}';
      flowIdOf(
        await setup(`${runtime.urls.main}/api/v1/flows`, attacker.apiKey, 'POST', {
          name: 'Heavy',
          trigger: 'custom_notification',
          consent: 'not_unsubscribed',
          steps: [{ ...email, html: heavy }],
        }),
      );
      const target = nextId('target');
      await event(runtime, attacker.apiKey, 'customers/create', {
        id: target,
        email: `${target}@a.example`,
        created_at: 1,
      });

      // One DynamoDB read, back to back through both phases: a stall of the local DynamoDB's thread shows there.
      const storeRepo = dynamoStoreRepository();
      const probe = () => storeRepo.get(attacker.storeId);
      // Warm-up, not measured: the first seconds of a fresh process (compiling, caches filling) ran the victims 3–5×
      // slower than the rest, which flattered phase B against A.
      log(`noisy: warm-up, victims alone for ${WARM_UP_SECONDS} s (not measured)`);
      await everySecond(WARM_UP_SECONDS, () => victimLoad(runtime, victims, []));
      await settled(runtime);
      log(`noisy: phase A, victims alone for ${seconds} s`);
      const sentA: Sent[] = [];
      const watchA = watchStalls(100, probe);
      const queuesA = sampleQueues(runtime);
      await sleep(WATCH_LEAD_MS);
      const startA = Date.now();
      const workBeforeA = work(runtime);
      await profiled(options.profile, 'noisy-a', () => everySecond(seconds, () => victimLoad(runtime, victims, sentA)));
      const workA = workSince(runtime, workBeforeA);
      await settled(runtime);
      const stallsA = await watchA.stop();
      const depthsA = await queuesA.stop();
      const a = await latencies(sentA);

      log(`noisy: phase B, victims with the attacker for ${seconds} s`);
      const sentB: Sent[] = [];
      const counts: Record<string, number> = {};
      const watchB = watchStalls(100, probe);
      const queuesB = sampleQueues(runtime);
      await sleep(WATCH_LEAD_MS);
      const startB = Date.now();
      const workBeforeB = work(runtime);
      await profiled(options.profile, 'noisy-b', () =>
        Promise.all([
          everySecond(seconds, () => victimLoad(runtime, victims, sentB)),
          everySecond(seconds, attack(runtime, attacker, target, counts)),
        ]),
      );
      const workB = workSince(runtime, workBeforeB);
      // Not the attacker's leftover work: its accepted bulk sends keep the sends queue busy for minutes at the account
      // rate (the drain used to sit out its 120 s limit), and its waits and notifications the ingest and flows queues
      // for some 18 s more (waited for until 27 November 2026). What phase B's figures read is the victims' events
      // applied and their order mails sent, from the times the service stored: waited for until every one is found
      // (or the same limit), then read as after phase A.
      const b = await victimsDone(sentB, DRAIN_MS, 2 * storeCount);
      const stallsB = await watchB.stop();
      const depthsB = await queuesB.stop();
      const outliers = (phase: typeof a, stalls: Stall[], start: number) => ({
        worst: phase.worst.map((w) => ({ ...w, at: w.at - start })),
        stalls: stalls.map((x) => ({ ...x, at: x.at - start })),
      });

      const scheduler = new SchedulerClient({ region: REGION, credentials });
      const schedules = async (prefix: string) => {
        let n = 0;
        let NextToken: string | undefined;
        do {
          const page = await scheduler.send(new ListSchedulesCommand({ NamePrefix: prefix, NextToken }));
          n += page.Schedules?.length ?? 0;
          NextToken = page.NextToken;
        } while (NextToken);
        return n;
      };
      const ticks = await schedules(`tick-${attacker.storeId}-`);
      const perRun = await schedules('flow-');
      scheduler.destroy();

      const ratio = (x: number, y: number) => (y > 0 ? round(x / y, 2) : 0);
      const metrics: Metric[] = [
        {
          key: 'appliedP99Ratio',
          label: "victims' event → applied p99, with ÷ without the attacker",
          value: ratio(b.applied.p99, a.applied.p99),
          unit: '×',
          target: { op: '<=', value: 1.5 },
        },
        {
          key: 'emailP99Ratio',
          label: "victims' trigger → email p99, with ÷ without the attacker",
          value: ratio(b.emailed.p99, a.emailed.p99),
          unit: '×',
          target: { op: '<=', value: 1.5 },
        },
        { key: 'appliedP99A', label: 'event → applied p99, victims alone', value: round(a.applied.p99), unit: 'ms' },
        {
          key: 'appliedP99B',
          label: 'event → applied p99, with the attacker',
          value: round(b.applied.p99),
          unit: 'ms',
        },
        { key: 'emailP99A', label: 'trigger → email p99, victims alone', value: round(a.emailed.p99), unit: 'ms' },
        { key: 'emailP99B', label: 'trigger → email p99, with the attacker', value: round(b.emailed.p99), unit: 'ms' },
        {
          key: 'steadyAppliedP99Ratio',
          label: `event → applied p99 after each phase's first ${STEADY_AFTER_MS / 1000} s, with ÷ without (context)`,
          value: ratio(b.steady.applied.p99, a.steady.applied.p99),
          unit: '×',
        },
        {
          key: 'steadyEmailP99Ratio',
          label: `trigger → email p99 after each phase's first ${STEADY_AFTER_MS / 1000} s, with ÷ without (context)`,
          value: ratio(b.steady.emailed.p99, a.steady.emailed.p99),
          unit: '×',
        },
        {
          key: 'attackerTicks',
          label: "attacker's live tick schedules (timer wheel)",
          value: ticks,
          unit: 'schedules',
        },
      ];
      return {
        scenario: 'noisy',
        title: 'Noisy neighbour: victims with and without an attacking store',
        metrics,
        notes: [
          `${storeCount} victim stores, each a customers/create and an orders/paid a second (victim i at i/${storeCount} of the second) for ${seconds} s per phase; ${formatNumber(sentA.length)} victim events in A, ${formatNumber(sentB.length)} in B (${a.missing + b.missing} not found applied or mailed after the drain).`,
          ...(process.env.NOISY_SKIP ? [`Left out of the attack (NOISY_SKIP): ${process.env.NOISY_SKIP}.`] : []),
          `Attacker answers: ${Object.entries(counts)
            .map(([k, v]) => `${k}: ${v}`)
            .join(', ')}; per-run flow schedules in the Scheduler: ${perRun}.`,
        ],
        details: {
          outliersA: outliers(a, stallsA, startA),
          outliersB: outliers(b, stallsB, startB),
          depthsA,
          depthsB,
          a,
          b,
          counts,
          ticks,
          perRunSchedules: perRun,
          workA,
          workB,
          stores: storeCount,
          seconds,
        },
      };
    } finally {
      // Stopping the runtime waits for the batches its pollers have in flight, and the attacker's bulk chunks in flight
      // sleep until their send slots, up to the pacer's 20 s ahead (18 s of the scenario until 27 November 2026): the
      // stop is waited for `STOP_WAIT_MS` at most. The rest of it is left to the process's exit (`bench/run.ts` exits
      // once the reports are written); the runtime is in memory, nothing is left behind.
      await Promise.race([runtime.stop(), sleep(STOP_WAIT_MS)]);
    }
  },
};
