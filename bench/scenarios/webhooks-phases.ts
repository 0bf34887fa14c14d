import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { countDelta, queueDepth } from '#bench/lib/runtime-probes.ts';
import { type CpuShare, cpuMeter, sleep } from '#bench/lib/stats.ts';
import { lambdaContext } from '#local/lambda-context.ts';
import { pollerClient, type QueueLambda, startPoller } from '#local/poller.ts';
import type { LocalRuntime } from '#local/runtime.ts';
import { dynamoDeliveryRepository } from '#shared/adapters/dynamodb/webhook.repositories.ts';
import type { Delivery } from '#shared/domain/webhooks/delivery.ts';
import {
  APPLY_LIMIT_MS,
  type Arrival,
  type BenchStore,
  DELIVER_LIMIT_MS,
  eventOf,
  IDLE_WAIT_MS,
  INGEST_WORKER,
  POLL_MS,
  postHeadless,
  type Receiver,
  SETTLE_LIMIT_MS,
  TOPIC,
} from './webhooks-setup.ts';

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
export const applyIngestQueue = async (runtime: LocalRuntime, sqs: SQSClient, expectedDeliveries: number) => {
  const worker = INGEST_WORKER;
  if (worker?.kind !== 'queue') throw new Error('webhooks: no ingest-worker in the catalog');
  // Imported now, not at load: the module the runtime loaded (its SDK clients and logger, built after the start).
  const { handler } = (await import(new URL(`../../${worker.entry}`, import.meta.url).href)) as {
    handler: QueueLambda;
  };
  const errors: string[] = [];
  const pollerSqs = pollerClient(runtime.urls.sqs);
  const poller = startPoller({
    sqs: pollerSqs,
    queueUrl: runtime.queueUrls.ingest,
    queueArn: await queueArnOf(sqs, runtime.queueUrls.ingest),
    batchSize: worker.batchSize,
    invoke: handler,
    context: () => lambdaContext(worker.name, worker.timeoutSeconds),
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
    pollerSqs.destroy();
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
export const deliverQueued = async (
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
export const deliveryRecords = async (stores: readonly BenchStore[], expected: ReadonlyMap<string, number>) => {
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
export const arrivalCounts = (
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

export // ---- Idle phase ------------------------------------------------------------------------------------------------------

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

export interface IdleSample {
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
export const idleSamples = async (
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
