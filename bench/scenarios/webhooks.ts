/**
 * Webhooks scenario: how many deliveries per second the webhook delivery worker makes to a local receiver, and what
 * delay the queue path adds to an event's webhook. One local runtime (in memory, random ports), one process, one run:
 *
 * 1. a receiver (node:http on 127.0.0.1, port 0, same process) answers 200 at once and records each request's arrival
 *    time and `x-service-delivery-id`; `--stores` stores each subscribe `customer/newsletter` to it (a path per store);
 * 2. throughput: with the queue pollers paused, `--count` headless `customers/create` events (default 1,000) are sent
 *    and accepted; the ingest worker's handler then applies them through a poller of the bench's own (the runtime's
 *    pollers stay paused), so the webhook queue holds one delivery per event before anything is delivered. The
 *    runtime's pollers resume and the receiver times the deliveries: deliveries/s from the first to the last arrival,
 *    every expected delivery received exactly once, none in the DLQ, every delivery record `delivered` in one attempt;
 * 3. added delay: with the system idle, events are sent one at a time; each one's delivery record (`createdAt`, set by
 *    the ingest worker's emit) and its arrival at the receiver give the queue path's delay (p50/p99), and the client's
 *    HTTP 200 to the arrival the end-to-end time.
 *
 * No target from the issue: the figures are context, except the exactly-once check (all `--count` received once).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism } from 'node:os';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { profiled } from '#bench/lib/profile.ts';
import { countDelta, queueDepth, READ_OPERATIONS, sumOf, WRITE_OPERATIONS } from '#bench/lib/runtime-probes.ts';
import {
  type CpuShare,
  cpuMeter,
  cpuText,
  formatNumber,
  listText,
  round,
  roundedLatency,
  sleep,
  summarize,
} from '#bench/lib/stats.ts';
import { storePacer } from '#bench/lib/store-windows.ts';
import type { Metric, Result, Scenario, ScenarioOptions } from '#bench/scenario.ts';
import { lambdaContext } from '#local/lambda-context.ts';
import { type QueueLambda, startPoller } from '#local/poller.ts';
import { REGION } from '#local/resources.ts';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamoDeliveryRepository } from '#shared/adapters/dynamodb/webhook.repositories.ts';
import { FUNCTIONS } from '#shared/catalog/functions.ts';
import { createStore } from '#shared/domain/stores/manage-stores.ts';
import { type Delivery, deliveryIdOf } from '#shared/domain/webhooks/delivery.ts';
import { LIMITS } from '#shared/limits.ts';
import { storeAdminDeps } from '#shared/wiring/store-admin.ts';

const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
const DEFAULT_COUNT = 1_000;
/** Events sent one at a time in the idle phase (nearest-rank p99 of 100 samples is the second slowest). */
const IDLE_SAMPLES = 100;
/** The generator keeps each store at 80 % of the spec's limit: a 429 then points at the server, not the bench. */
const PER_STORE_BUDGET = Math.floor(LIMITS.eventsPerSecond * 0.8);
const TOPIC = 'customer/newsletter';
const APPLY_LIMIT_MS = 120_000;
const DELIVER_LIMIT_MS = 120_000;
const SETTLE_LIMIT_MS = 30_000;
const IDLE_WAIT_MS = 10_000;
const POLL_MS = 20;
/** A fixed epoch (2023-11-14) for the payloads' `created_at`. */
const T0 = 1_700_000_000;
/** Same as the worker scenario: ERROR unless `POWERTOOLS_LOG_LEVEL` is set (e.g. WARN to see retried messages). */
const LOG_LEVEL = process.env.POWERTOOLS_LOG_LEVEL ?? 'ERROR';
const INGEST_WORKER = FUNCTIONS.find((f) => f.name === 'ingest-worker');
const DELIVERY_WORKER = FUNCTIONS.find((f) => f.name === 'webhook-delivery-worker');

// ---- The receiver --------------------------------------------------------------------------------------------------

interface Arrival {
  /** `x-service-delivery-id` ('' when absent). */
  readonly id: string;
  readonly path: string;
  readonly topic: string;
  /** Epoch ms (`Date.now()`, the clock the service stamps its records with). */
  readonly at: number;
  /** `performance.now()`, for the rate. */
  readonly perfMs: number;
}

/**
 * A webhook receiver on 127.0.0.1: records the arrival of each request (when its headers are parsed) and answers 200
 * once the body is read. It checks nothing heavy (no signature): what it costs is the HTTP server's own work.
 */
const startReceiver = async () => {
  const arrivals: Arrival[] = [];
  const listeners = new Set<(arrival: Arrival) => void>();
  const server = createServer((request, response) => {
    const arrival: Arrival = {
      id: String(request.headers['x-service-delivery-id'] ?? ''),
      path: request.url ?? '',
      topic: String(request.headers['x-service-topic'] ?? ''),
      at: Date.now(),
      perfMs: performance.now(),
    };
    arrivals.push(arrival);
    for (const listener of listeners) listener(arrival);
    request.resume();
    request.once('end', () => response.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  /** Calls `listener` on every arrival until the returned function is called. */
  const listen = (listener: (arrival: Arrival) => void): (() => void) => {
    listeners.add(listener);
    return () => listeners.delete(listener);
  };
  /** The arrival of delivery `id` (register before it can arrive), or undefined after `timeoutMs`. */
  const waitFor = (id: string, timeoutMs: number): Promise<Arrival | undefined> =>
    new Promise((resolve) => {
      const stop = listen((arrival) => {
        if (arrival.id !== id) return;
        clearTimeout(timer);
        stop();
        resolve(arrival);
      });
      const timer = setTimeout(() => {
        stop();
        resolve(undefined);
      }, timeoutMs);
    });
  return {
    url,
    arrivals,
    listen,
    waitFor,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
};
type Receiver = Awaited<ReturnType<typeof startReceiver>>;

// ---- Stores, subscriptions and events -----------------------------------------------------------------------------

interface BenchStore {
  readonly storeId: string;
  readonly apiKey: string;
  readonly webhookId: string;
  readonly path: string;
}

/** Direct-API stores, each subscribing `customer/newsletter` to its own path of the receiver (through the API). */
const createSubscribedStores = async (runtime: LocalRuntime, receiverUrl: string, count: number) => {
  const deps = storeAdminDeps();
  const stores: BenchStore[] = new Array(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const { store, apiKey } = await createStore(deps, { name: `Bench webhooks store ${i + 1}`, type: 'direct' });
      const path = `/hooks/${i}`;
      const response = await fetch(`${runtime.urls.main}/api/v1/webhooks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-access-token': apiKey },
        body: JSON.stringify({ topic: TOPIC, url: `${receiverUrl}${path}` }),
      });
      const text = await response.text();
      const webhookId = (JSON.parse(text) as { data?: { id?: string } }).data?.id;
      if (response.status !== 200 || !webhookId) {
        throw new Error(`webhooks: subscribing store ${i + 1} failed: HTTP ${response.status} ${text.slice(0, 300)}`);
      }
      stores[i] = { storeId: store.storeId, apiKey, webhookId, path };
    }
  };
  await Promise.all(Array.from({ length: Math.min(8, count) }, worker));
  return stores;
};

/** Event `n` goes to store `n mod stores`; its delivery id follows from the store's webhook and the source id. */
const eventOf = (stores: readonly BenchStore[], prefix: string, n: number) => {
  const store = stores[n % stores.length] as BenchStore;
  const sourceId = `${prefix}-${n}`;
  return {
    store,
    storeIndex: n % stores.length,
    body: JSON.stringify({
      endpoint: 'customers/create',
      source_id: sourceId,
      data: { id: `${prefix}c-${n}`, email: `${prefix}${n}@example.com`, created_at: T0 + n },
    }),
    deliveryId: deliveryIdOf(store.webhookId, `newsletter#${sourceId}`),
  };
};

const postHeadless = async (runtime: LocalRuntime, apiKey: string, body: string) => {
  const response = await fetch(`${runtime.urls.front}/api/v1/headless/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-access-token': apiKey },
    body,
  });
  const text = await response.text();
  return { accepted: response.status === 200 && text.includes('"success":true'), status: response.status, text };
};

/** Sends events 0…count−1 (`concurrency` at a time, paced per store); every one must be accepted. */
const sendAll = async (runtime: LocalRuntime, stores: readonly BenchStore[], count: number, concurrency: number) => {
  const pacer = storePacer(stores.length, PER_STORE_BUDGET);
  const outcomes: Record<string, number> = {};
  const samples: string[] = [];
  let next = 0;
  const start = performance.now();
  const client = async () => {
    while (next < count) {
      const n = next++;
      const event = eventOf(stores, 'wh', n);
      await pacer.take(event.storeIndex);
      try {
        const answer = await postHeadless(runtime, event.store.apiKey, event.body);
        const outcome = answer.accepted ? 'accepted' : `HTTP ${answer.status}`;
        outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
        if (!answer.accepted && samples.length < 5) samples.push(`${outcome}: ${answer.text.slice(0, 300)}`);
      } catch (error) {
        const outcome = `error ${(error as { code?: string }).code ?? (error as Error).name}`;
        outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
        if (samples.length < 5) samples.push(`${outcome}: ${String(error).slice(0, 300)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, client));
  return { elapsedMs: performance.now() - start, outcomes, samples };
};

// ---- Throughput phase -----------------------------------------------------------------------------------------------

const queueArnOf = async (sqs: SQSClient, queueUrl: string) => {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }),
  );
  return Attributes?.QueueArn ?? '';
};

/**
 * Applies the ingest queue with the ingest worker's own handler through a poller of the bench's (same receive loops and
 * batch size as the runtime's), while the runtime's pollers stay paused: the deliveries the worker emits pile up in
 * the webhook queue instead of being delivered as they come. Done when the ingest queue is read empty twice in a row.
 */
const applyIngestQueue = async (runtime: LocalRuntime, sqs: SQSClient, expectedDeliveries: number) => {
  if (INGEST_WORKER?.kind !== 'queue') throw new Error('webhooks: no ingest-worker in the catalog');
  // Imported now, not at load: the module the runtime loaded (its SDK clients and logger, built after the start).
  const { handler } = (await import(new URL(`../../${INGEST_WORKER.entry}`, import.meta.url).href)) as {
    handler: QueueLambda;
  };
  const errors: string[] = [];
  const poller = startPoller({
    sqs,
    queueUrl: runtime.queueUrls.ingest,
    queueArn: await queueArnOf(sqs, runtime.queueUrls.ingest),
    batchSize: INGEST_WORKER.batchSize,
    invoke: handler,
    context: () => lambdaContext(INGEST_WORKER.name, INGEST_WORKER.timeoutSeconds),
    onError: (error) => {
      if (errors.length < 5) errors.push(String(error).slice(0, 300));
    },
  });
  const start = performance.now();
  let emptyReadings = 0;
  let webhooksDepth = await queueDepth(sqs, runtime.queueUrls.webhooks);
  try {
    while (performance.now() - start < APPLY_LIMIT_MS) {
      await sleep(50);
      const ingest = await queueDepth(sqs, runtime.queueUrls.ingest);
      emptyReadings = ingest.total === 0 ? emptyReadings + 1 : 0;
      if (emptyReadings >= 2) break;
    }
  } finally {
    await poller.stop();
  }
  webhooksDepth = await queueDepth(sqs, runtime.queueUrls.webhooks);
  return {
    elapsedMs: performance.now() - start,
    complete: emptyReadings >= 2,
    webhooksQueued: webhooksDepth.total,
    expectedDeliveries,
    errors,
  };
};

/**
 * Resumes the runtime's pollers with the webhook queue full and times the deliveries at the receiver until every
 * expected one arrived (bounded), then until the webhook queue is read empty (the last settles and deletes).
 */
const deliverQueued = async (
  runtime: LocalRuntime,
  sqs: SQSClient,
  receiver: Receiver,
  expected: ReadonlyMap<string, number>,
) => {
  const seen = new Set<string>();
  let first: number | undefined;
  let last: number | undefined;
  let resolveAll: () => void = () => undefined;
  const allArrived = new Promise<void>((resolve) => {
    resolveAll = resolve;
  });
  const stop = receiver.listen((arrival) => {
    if (!expected.has(arrival.id) || seen.has(arrival.id)) return;
    seen.add(arrival.id);
    first ??= arrival.perfMs;
    last = arrival.perfMs;
    if (seen.size === expected.size) resolveAll();
  });

  const callsBefore = runtime.dynamodbCalls();
  const meter = cpuMeter();
  const start = performance.now();
  runtime.setPollersPaused(false);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), DELIVER_LIMIT_MS);
  });
  const outcome = await Promise.race([allArrived.then(() => 'complete' as const), timeout]);
  clearTimeout(timer);
  stop();
  const arrivedAtMs = performance.now() - start;
  const cpuAtLast = meter();

  // The worker still settles the last records and deletes the last messages after the receiver answered.
  let settledMs: number | undefined;
  let cpu: CpuShare = cpuAtLast;
  let depth = await queueDepth(sqs, runtime.queueUrls.webhooks);
  while (performance.now() - start < arrivedAtMs + SETTLE_LIMIT_MS) {
    if (depth.total === 0) {
      settledMs = performance.now() - start;
      cpu = meter();
      break;
    }
    await sleep(POLL_MS);
    depth = await queueDepth(sqs, runtime.queueUrls.webhooks);
  }
  const dynamodbCalls = countDelta(callsBefore, runtime.dynamodbCalls());
  const received = seen.size;
  const spanMs = first !== undefined && last !== undefined ? last - first : 0;
  return {
    complete: outcome === 'complete',
    expected: expected.size,
    received,
    firstArrivalMs: first === undefined ? undefined : first - start,
    lastArrivalMs: last === undefined ? undefined : last - start,
    spanMs,
    /** (received − 1) intervals between the first and the last distinct arrival. */
    perSecond: received > 1 && spanMs > 0 ? (received - 1) / (spanMs / 1000) : 0,
    /** From the pollers' resume to the last distinct arrival. */
    perSecondFromResume: last === undefined ? 0 : received / ((last - start) / 1000),
    settledMs,
    queueLeft: depth.total,
    cpu,
    cpuAtLast,
    dynamodbCalls,
  };
};

/** Reads every expected delivery record: status and number of attempts (a few reads at a time). */
const deliveryRecords = async (stores: readonly BenchStore[], expected: ReadonlyMap<string, number>) => {
  const repository = dynamoDeliveryRepository();
  const ids = [...expected];
  const statuses: Record<string, number> = {};
  const attempts: Record<string, number> = {};
  let oneAttemptDelivered = 0;
  let next = 0;
  const reader = async () => {
    while (next < ids.length) {
      const [id, store] = ids[next++] as [string, number];
      const record = await repository.get((stores[store] as BenchStore).storeId, id);
      const status = record?.status ?? 'missing';
      statuses[status] = (statuses[status] ?? 0) + 1;
      const tries = String(record?.attempts.length ?? 0);
      attempts[tries] = (attempts[tries] ?? 0) + 1;
      if (status === 'delivered' && record?.attempts.length === 1) oneAttemptDelivered++;
    }
  };
  await Promise.all(Array.from({ length: 16 }, reader));
  return { statuses, attempts, oneAttemptDelivered };
};

/** How often each expected id arrived, arrivals of unknown ids, and arrivals on another store's path. */
const arrivalCounts = (
  arrivals: readonly Arrival[],
  expected: ReadonlyMap<string, number>,
  stores: readonly BenchStore[],
  /** Ids another phase expects: not counted as unexpected here. */
  others: ReadonlyMap<string, number> = new Map(),
) => {
  const counts = new Map<string, number>();
  let unexpected = 0;
  let wrongPath = 0;
  let wrongTopic = 0;
  for (const arrival of arrivals) {
    const store = expected.get(arrival.id);
    if (store === undefined) {
      if (!others.has(arrival.id)) unexpected++;
      continue;
    }
    counts.set(arrival.id, (counts.get(arrival.id) ?? 0) + 1);
    if (arrival.path !== stores[store]?.path) wrongPath++;
    if (arrival.topic !== TOPIC) wrongTopic++;
  }
  let exactlyOnce = 0;
  let duplicated = 0;
  for (const count of counts.values()) {
    if (count === 1) exactlyOnce++;
    else duplicated++;
  }
  return { exactlyOnce, duplicated, missing: expected.size - counts.size, unexpected, wrongPath, wrongTopic };
};

// ---- Idle phase ------------------------------------------------------------------------------------------------------

/** A delivery record once it is settled (delivered or otherwise), or its last reading after `timeoutMs`. */
const settledRecord = async (storeId: string, id: string, timeoutMs: number): Promise<Delivery | undefined> => {
  const repository = dynamoDeliveryRepository();
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const record = await repository.get(storeId, id);
    if ((record && record.status !== 'pending') || performance.now() > deadline) return record;
    await sleep(10);
  }
};

interface IdleSample {
  /** Client sent the request → got the HTTP 200. */
  readonly acceptMs: number;
  /** Client got the HTTP 200 → the delivery record's `createdAt` (ingest queue, apply up to the emit). */
  readonly acceptedToRecordedMs: number;
  /** Delivery record's `createdAt` → arrival at the receiver: the queue path. */
  readonly queuePathMs: number;
  /** Client got the HTTP 200 → arrival at the receiver. */
  readonly endToEndMs: number;
  /** The sender's own measure of the POST (request → response). */
  readonly postMs: number;
  readonly attempts: number;
  readonly status: string;
}

/** Events one at a time, each waited for at the receiver and in its record, with a varied pause in between. */
const idleSamples = async (
  runtime: LocalRuntime,
  receiver: Receiver,
  stores: readonly BenchStore[],
  count: number,
  log: (line: string) => void,
) => {
  const samples: IdleSample[] = [];
  const failures: string[] = [];
  const expected = new Map<string, number>();
  for (let n = 0; n < count; n++) {
    const event = eventOf(stores, 'wl', n);
    expected.set(event.deliveryId, event.storeIndex);
    const arrived = receiver.waitFor(event.deliveryId, IDLE_WAIT_MS);
    const sentAt = Date.now();
    const answer = await postHeadless(runtime, event.store.apiKey, event.body);
    const acceptedAt = Date.now();
    if (!answer.accepted) {
      failures.push(`event ${n}: HTTP ${answer.status} ${answer.text.slice(0, 200)}`);
      continue;
    }
    const arrival = await arrived;
    if (!arrival) {
      failures.push(`event ${n}: no delivery within ${IDLE_WAIT_MS / 1000} s`);
      continue;
    }
    const record = await settledRecord(event.store.storeId, event.deliveryId, 5_000);
    if (!record) {
      failures.push(`event ${n}: no delivery record`);
      continue;
    }
    samples.push({
      acceptMs: acceptedAt - sentAt,
      acceptedToRecordedMs: record.createdAt - acceptedAt,
      queuePathMs: arrival.at - record.createdAt,
      endToEndMs: arrival.at - acceptedAt,
      postMs: record.attempts[0]?.latencyMs ?? Number.NaN,
      attempts: record.attempts.length,
      status: record.status,
    });
    if ((n + 1) % 25 === 0) log(`webhooks: idle phase, ${n + 1} of ${count} events`);
    // 50–250 ms, varied: the next event finds the pollers idle, at no fixed point of their receive cycle.
    await sleep(50 + ((n * 73) % 201));
  }
  return { samples, failures, expected };
};

// ---- Report ---------------------------------------------------------------------------------------------------------

type Sent = Awaited<ReturnType<typeof sendAll>>;
type Applied = Awaited<ReturnType<typeof applyIngestQueue>>;
type Delivered = Awaited<ReturnType<typeof deliverQueued>>;
type Idle = Awaited<ReturnType<typeof idleSamples>>;

interface Measured {
  readonly stores: number;
  readonly count: number;
  readonly sent: Sent;
  readonly applied: Applied;
  readonly delivered: Delivered;
  readonly arrivals: ReturnType<typeof arrivalCounts>;
  readonly records: Awaited<ReturnType<typeof deliveryRecords>>;
  readonly idle: Idle;
  readonly idleArrivals: ReturnType<typeof arrivalCounts>;
  readonly dlq: { webhooks: number; ingest: number; timers: number };
}

const report = (m: Measured): Result => {
  const { delivered, idle } = m;
  const incomplete = delivered.complete ? '' : ' (incomplete)';
  const queuePath = summarize(idle.samples.map((s) => s.queuePathMs));
  const endToEnd = summarize(idle.samples.map((s) => s.endToEndMs));
  const toRecorded = summarize(idle.samples.map((s) => s.acceptedToRecordedMs));
  const accept = summarize(idle.samples.map((s) => s.acceptMs));
  const post = summarize(idle.samples.map((s) => s.postMs).filter((v) => Number.isFinite(v)));
  const perDelivery = (value: number) => value / (delivered.received || 1);
  const reads = sumOf(delivered.dynamodbCalls, READ_OPERATIONS);
  const writes = sumOf(delivered.dynamodbCalls, WRITE_OPERATIONS);
  const batch = DELIVERY_WORKER?.kind === 'queue' ? DELIVERY_WORKER.batchSize : undefined;

  const metrics: Metric[] = [
    {
      key: 'deliveriesPerSecond',
      label: `Webhook deliveries/s to a local receiver (${m.count} queued)${incomplete}`,
      value: delivered.perSecond,
      unit: '/s',
    },
    {
      key: 'deliveredExactlyOnce',
      label: `Deliveries received exactly once (of ${m.count})`,
      value: m.arrivals.exactlyOnce,
      unit: '',
      target: { op: '>=', value: m.count },
    },
    {
      key: 'cpuPerDelivery',
      label: 'CPU per delivery (whole process)',
      value: perDelivery(delivered.cpu.processMs),
      unit: 'ms',
    },
    {
      key: 'queuePathP50',
      label: 'Queue path delay p50 (delivery recorded → received, idle)',
      value: queuePath.p50,
      unit: 'ms',
    },
    {
      key: 'queuePathP99',
      label: 'Queue path delay p99 (delivery recorded → received, idle)',
      value: queuePath.p99,
      unit: 'ms',
    },
    { key: 'endToEndP50', label: 'Event accepted → webhook received p50 (idle)', value: endToEnd.p50, unit: 'ms' },
    { key: 'endToEndP99', label: 'Event accepted → webhook received p99 (idle)', value: endToEnd.p99, unit: 'ms' },
  ];

  const dlqText = `DLQs: webhooks ${m.dlq.webhooks}, ingest ${m.dlq.ingest}, timers ${m.dlq.timers}`;
  const notes: string[] = [
    `Local runtime in memory, one process on ${availableParallelism()} cores: the workers, dynalite, fauxqs and the receiver (node:http on 127.0.0.1, same event loop; it answers 200 once the body is read, records the arrival time and x-service-delivery-id, checks no signature) share one event loop. ${m.stores} stores each subscribe ${TOPIC} to their own path of the receiver; a headless customers/create also emits customer/marketing (the form subscribes the email), which is logged but not subscribed, so each event makes exactly one delivery.`,
    `Fill (not measured): ${m.count} headless customers/create events sent with every poller paused (all accepted) in ${round(m.sent.elapsedMs / 1000, 1)} s; then the ingest worker's handler applied them through a poller of the bench's own (2 receive loops × ${INGEST_WORKER?.kind === 'queue' ? INGEST_WORKER.batchSize : '?'}, like the runtime's) while the runtime's pollers stayed paused: ${round(m.applied.elapsedMs / 1000, 1)} s${m.applied.complete ? '' : ' (INCOMPLETE)'} (${formatNumber(m.count / (m.applied.elapsedMs / 1000))} events/s), leaving ${m.applied.webhooksQueued} deliveries queued for ${m.count} events.`,
    `Deliveries/s = (deliveries received − 1) ÷ time from the first to the last distinct arrival at the receiver, after the runtime's pollers resumed with the webhook queue full and every other queue empty: the delivery worker's steady rate (2 receive loops × batches of ${batch ?? '?'}, the records of a batch in parallel), each delivery a read of the record and the subscription, the HMAC, the POST, the record's update and the batched delete. Resume → first arrival ${formatNumber(delivered.firstArrivalMs ?? Number.NaN)} ms, → last ${round((delivered.lastArrivalMs ?? Number.NaN) / 1000, 2)} s (${formatNumber(delivered.perSecondFromResume)}/s counted from the resume); queue read empty ${delivered.settledMs === undefined ? `NOT within ${SETTLE_LIMIT_MS / 1000} s (${delivered.queueLeft} left)` : `at ${round(delivered.settledMs / 1000, 2)} s`}.`,
    `Exactly once: ${m.arrivals.exactlyOnce} of ${m.count} expected deliveries received once, ${m.arrivals.duplicated} more than once, ${m.arrivals.missing} never; ${m.arrivals.unexpected} unexpected requests, ${m.arrivals.wrongPath} on another store's path, ${m.arrivals.wrongTopic} with another topic. Delivery records: ${listText(m.records.statuses)}; attempts ${listText(m.records.attempts)}. ${dlqText}.`,
    `DynamoDB operations per delivery: ${listText(delivered.dynamodbCalls, (n) => formatNumber(perDelivery(n)))} (reads ${formatNumber(perDelivery(reads))}, writes ${formatNumber(perDelivery(writes))}; the store key is read once per store, then cached for a minute). CPU, in cores, from the resume to the queue read empty: ${cpuText(delivered.cpu)}.${delivered.cpu.otherCores >= 0.25 ? ' Other processes took a noticeable share of the CPU: the rate is disturbed (the CPU per delivery much less); run again on a quiet machine.' : ''}`,
    `Idle: ${idle.samples.length} of ${IDLE_SAMPLES} events sent one at a time (store after store, 50–250 ms apart), each waited for at the receiver and until its record settled${idle.failures.length > 0 ? `; ${idle.failures.length} failed: ${idle.failures.slice(0, 3).join(' | ')}` : ''}. Queue path delay = arrival at the receiver − the delivery record's createdAt (the ingest worker's emit stamps it just before the record's PutItem and the SendMessage): the record's write, the send, the pickup, the worker's reads, the HMAC and the POST up to the receiver's request headers; both are Date.now() of this process (1 ms resolution). Exactly once: ${idle.samples.length > 0 ? `${m.idleArrivals.exactlyOnce} of ${idle.expected.size}, ${m.idleArrivals.duplicated} duplicated` : 'n/a'}.`,
    `End-to-end = arrival − the client's HTTP 200 for the event: adds the ingest queue (FIFO) pickup and the apply (customer upsert, event log, customer/marketing log, the subscription-welcome trigger) up to the emit: accepted → recorded p50 ${formatNumber(toRecorded.p50)} ms (p99 ${formatNumber(toRecorded.p99)}), recorded → received p50 ${formatNumber(queuePath.p50)} ms; the event's own HTTP request took p50 ${formatNumber(accept.p50)} ms, the worker's POST to the receiver p50 ${formatNumber(post.p50)} ms.`,
    `Pickup: the local pollers long-poll with WaitTimeSeconds 1, 2 loops per queue (a loop busy with a batch does not receive). fauxqs answers a waiting receive as soon as a message is sent, so on an idle queue the pickup is not a polling interval; the 1 s only bounds a receive that finds nothing, after which the loop asks again at once. The idle delays here are processing, not polling (slowest queue path ${formatNumber(queuePath.max)} ms, far below the 1 s wait); Lambda's event source mapping picks up on its own schedule and is not measured here. p99 is nearest-rank: of ${idle.samples.length} samples, the ${idle.samples.length >= 100 ? 'second slowest' : 'slowest'}.`,
    'No target: the issue sets none for these figures (context); the exactly-once count is checked against the number of deliveries queued.',
  ];

  return {
    scenario: 'webhooks',
    title: 'Webhook delivery throughput and the added delay of the queue path',
    metrics,
    notes,
    details: {
      stores: m.stores,
      topic: TOPIC,
      fill: { ...m.sent, elapsedMs: round(m.sent.elapsedMs) },
      applyIngest: { ...m.applied, elapsedMs: round(m.applied.elapsedMs) },
      deliveries: {
        ...delivered,
        firstArrivalMs: delivered.firstArrivalMs === undefined ? undefined : round(delivered.firstArrivalMs),
        lastArrivalMs: delivered.lastArrivalMs === undefined ? undefined : round(delivered.lastArrivalMs),
        spanMs: round(delivered.spanMs),
        perSecond: round(delivered.perSecond, 1),
        perSecondFromResume: round(delivered.perSecondFromResume, 1),
        settledMs: delivered.settledMs === undefined ? undefined : round(delivered.settledMs),
        reads,
        writes,
      },
      arrivals: m.arrivals,
      records: m.records,
      dlq: m.dlq,
      idle: {
        samples: idle.samples.length,
        failures: idle.failures,
        arrivals: m.idleArrivals,
        queuePathMs: roundedLatency(queuePath),
        endToEndMs: roundedLatency(endToEnd),
        acceptedToRecordedMs: roundedLatency(toRecorded),
        acceptMs: roundedLatency(accept),
        postMs: roundedLatency(post),
        statuses: idle.samples.reduce<Record<string, number>>((acc, s) => {
          acc[s.status] = (acc[s.status] ?? 0) + 1;
          return acc;
        }, {}),
      },
    },
  };
};

// ---- The scenario ---------------------------------------------------------------------------------------------------

export const webhooks: Scenario = {
  name: 'webhooks',
  description: 'Webhook deliveries/s to a local receiver (--count, default 1,000) and the queue path delay',
  async run(options: ScenarioOptions) {
    const { log } = options;
    const count = options.count ?? DEFAULT_COUNT;
    log('webhooks: starting the local runtime (in memory) and the receiver');
    const runtime = await startLocalRuntime({ logLevel: LOG_LEVEL });
    runtime.setPollersPaused(true);
    const sqs = new SQSClient({ region: REGION, credentials, endpoint: runtime.urls.sqs });
    const receiver = await startReceiver();
    try {
      log(`webhooks: creating ${options.stores} stores subscribing ${TOPIC}`);
      const stores = await createSubscribedStores(runtime, receiver.url, options.stores);
      // A receive already waiting when the pollers paused may still pick up a message: let it time out (1 s poll).
      await sleep(1_200);

      log(`webhooks: sending ${count} headless customers/create events (pollers paused)`);
      const sent = await sendAll(runtime, stores, count, options.concurrency);
      const accepted = sent.outcomes.accepted ?? 0;
      if (accepted !== count) {
        throw new Error(
          `webhooks: ${count - accepted} of ${count} events were not accepted (${listText(sent.outcomes)}); first: ${sent.samples.join(' | ')}`,
        );
      }
      const expected = new Map<string, number>();
      for (let n = 0; n < count; n++) {
        const event = eventOf(stores, 'wh', n);
        expected.set(event.deliveryId, event.storeIndex);
      }

      log('webhooks: applying the ingest queue (runtime pollers paused, deliveries pile up in the webhook queue)');
      const applied = await applyIngestQueue(runtime, sqs, count);
      if (applied.webhooksQueued !== count) {
        log(`webhooks: warning, ${applied.webhooksQueued} deliveries queued for ${count} events`);
      }

      log(`webhooks: delivering ${applied.webhooksQueued} queued deliveries (at most ${DELIVER_LIMIT_MS / 1000} s)`);
      const delivered = await profiled(options.profile, 'webhooks-deliveries', () =>
        deliverQueued(runtime, sqs, receiver, expected),
      );
      const records = await deliveryRecords(stores, expected);
      const phaseAArrivals = receiver.arrivals.length;

      log(`webhooks: idle phase, ${IDLE_SAMPLES} events one at a time`);
      const idle = await idleSamples(runtime, receiver, stores, IDLE_SAMPLES, log);
      // Anything late (a retry, a duplicate) shows in the counts below.
      await sleep(500);
      const [webhooksDlq, ingestDlq, timersDlq] = await Promise.all([
        queueDepth(sqs, runtime.dlqUrls.webhooks),
        queueDepth(sqs, runtime.dlqUrls.ingest),
        queueDepth(sqs, runtime.dlqUrls.timers),
      ]);
      const arrivals = arrivalCounts(receiver.arrivals, expected, stores, idle.expected);
      const idleArrivals = arrivalCounts(receiver.arrivals, idle.expected, stores, expected);
      log(`webhooks: ${phaseAArrivals} requests in the throughput phase, ${receiver.arrivals.length} in all`);
      return report({
        stores: stores.length,
        count,
        sent,
        applied,
        delivered,
        arrivals,
        records,
        idle,
        idleArrivals,
        dlq: { webhooks: webhooksDlq.total, ingest: ingestDlq.total, timers: timersDlq.total },
      });
    } finally {
      sqs.destroy();
      await runtime.stop();
      await receiver.close();
    }
  },
};
