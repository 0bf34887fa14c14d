import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { type LoopOptions, type LoopResult, runLoops } from '#bench/lib/op-loop.ts';
import { countDelta, queueDepth, READ_OPERATIONS, sumOf, WRITE_OPERATIONS } from '#bench/lib/runtime-probes.ts';
import { round, roundedLatency, sleep } from '#bench/lib/stats.ts';
import type { ScenarioOptions } from '#bench/scenario.ts';
import { REGION, TABLE_NAME } from '#local/resources.ts';
import type { LocalRuntime } from '#local/runtime.ts';
import { dynamoEventLog } from '#shared/adapters/dynamodb/event-log.repository.ts';
import { dynamoRateLimiter } from '#shared/adapters/dynamodb/rate-limiter.ts';
import { sqsIngestQueue } from '#shared/adapters/sqs/ingest-queue.ts';
import { messageGroupOf } from '#shared/domain/ingest/accept-event.ts';
import { LIMITS } from '#shared/limits.ts';

export const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
/** The generator keeps each store at 80 % of the spec's limit: a 429 then points at the server, not the bench. */
export const PER_STORE_BUDGET = Math.floor(LIMITS.eventsPerSecond * 0.8);
/**
 * The worker drain's window (context: the `worker` scenario times the worker to an empty queue). 30 s until 27 November
 * 2026, when the gateway phase's 3,000–4,000 events took most of it: the rate over the first 12 s was the same within
 * 5 % (53.6/s at 12.9 s, 51.2/s at 29.5 s, one traced run at load 11).
 */
export const DRAIN_LIMIT_MS = 12_000;

export const loopOptions = (options: ScenarioOptions, seconds: number, profileAs?: string): LoopOptions => ({
  concurrency: options.concurrency,
  ...(options.count === undefined ? { durationMs: seconds * 1000 } : { count: options.count }),
  ...(options.profile && profileAs ? { profileAs } : {}),
});

/**
 * `concurrency` loops of conditional puts on fresh keys, through the SDK's document client over HTTP: the fixed
 * reference for the machine, so it stays on the stock SDK although the service now sends through its own client
 * (`shared/adapters/dynamodb-client.ts`, several times cheaper per call): the ratios to it show what the service gained.
 */
export const rawPuts = async (runtime: LocalRuntime, options: ScenarioOptions) => {
  const client = DynamoDBDocumentClient.from(
    new DynamoDBClient({ region: REGION, credentials, endpoint: runtime.urls.dynamodb }),
    { marshallOptions: { removeUndefinedValues: true } },
  );
  try {
    return await runLoops(
      (n) =>
        client.send(
          new PutCommand({
            TableName: TABLE_NAME,
            // Shaped like the event record the ingest handler writes.
            Item: {
              pk: `BENCH#raw#${n}`,
              sk: 'EVENT',
              entity: 'event',
              schema: 1,
              storeId: 'st_bench',
              sourceId: `r-${n}`,
              endpoint: 'customers/create',
              interface: 'general',
              acceptedAt: Date.now(),
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        ),
      loopOptions(options, options.seconds, 'ingest-puts'),
    );
  } finally {
    client.destroy();
  }
};

/**
 * What each downstream call of the event path costs on its own, made through the production adapters (so it follows
 * them when they change): the rate-limit counter, the event record's conditional put, the FIFO send. What an accepted
 * event costs beyond their sum is HTTP, gateway and handler framework (and the load generator when it shares the
 * thread). The sends go to the ingest queue: run with the pollers paused, after the queue depth was read.
 */
export const breakdown = async (options: ScenarioOptions) => {
  const seconds = Math.max(2, options.seconds / 2);
  const clock = { now: () => Date.now() };
  const limiter = dynamoRateLimiter(clock);
  const events = dynamoEventLog();
  const queue = sqsIngestQueue();
  const accepted = (n: number) => ({
    storeId: `st_bench${n % options.stores}`,
    sourceId: `x-${n}`,
    endpoint: 'customers/create',
    interface: 'general' as const,
    acceptedAt: clock.now(),
  });
  const rateLimit = await runLoops(
    // A limit no window reaches: every call is the conditional ADD an allowed request costs.
    (n) => limiter.take(`st_bench${n % options.stores}#general`, 1e9),
    loopOptions(options, seconds, 'ingest-breakdown-ratelimit'),
  );
  const record = await runLoops(
    async (n) => {
      if (!(await events.record(accepted(n), 'bench'))) throw new Error('duplicate');
    },
    loopOptions(options, seconds, 'ingest-breakdown-record'),
  );
  const send = await runLoops(
    (n) => {
      const data = { id: `c-${n}`, email: `c${n}@example.com`, created_at: 1700000000, first_name: 'Ada' };
      const event = accepted(n);
      return queue.send({ ...event, v: 1, data }, messageGroupOf(event.storeId, event.endpoint, data));
    },
    loopOptions(options, seconds, 'ingest-breakdown-send'),
  );
  return { rateLimit, record, send };
};

/** Resumes the pollers and times the worker until the ingest queue is empty (bounded). */
export const drain = async (runtime: LocalRuntime, sqs: SQSClient, queued: number) => {
  const callsBefore = runtime.dynamodbCalls();
  const start = performance.now();
  runtime.setPollersPaused(false);
  let left = queued;
  while (performance.now() - start < DRAIN_LIMIT_MS) {
    await sleep(100);
    left = (await queueDepth(sqs, runtime.queueUrls.ingest)).total;
    if (left === 0) break;
  }
  const elapsedMs = performance.now() - start;
  const applied = queued - left;
  const calls = countDelta(callsBefore, runtime.dynamodbCalls());
  const dlq = await queueDepth(sqs, runtime.dlqUrls.ingest);
  return {
    elapsedMs,
    queued,
    applied,
    left,
    complete: left === 0,
    perSecond: applied / (elapsedMs / 1000),
    dlq: dlq.total,
    writesPerEvent: applied > 0 ? sumOf(calls, WRITE_OPERATIONS) / applied : 0,
    readsPerEvent: applied > 0 ? sumOf(calls, READ_OPERATIONS) / applied : 0,
    dynamodbCalls: calls,
  };
};

export const loopDetails = (r: LoopResult) => ({
  elapsedMs: round(r.elapsedMs),
  ok: r.ok,
  failures: r.failures,
  perSecond: round(r.perSecond, 1),
  cpuMsPerOp: round(r.cpuMsPerOp, 3),
  latencyMs: roundedLatency(r.latency),
  cpu: r.cpu,
  ...(r.firstError === undefined ? {} : { firstError: r.firstError }),
});
