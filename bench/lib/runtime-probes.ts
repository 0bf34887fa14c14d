/**
 * What a scenario reads from the local runtime besides its own timings: the depth of a queue, DynamoDB operation
 * counts (and their difference between two readings), how busy its two threads were, the calls the in-repo Scheduler
 * emulator served, and the stores to send events to.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { type EventLoopUtilization, performance } from 'node:perf_hooks';
import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { createStore } from '#shared/domain/stores/manage-stores.ts';
import { storeAdminDeps } from '#shared/wiring/store-admin.ts';
import { round, sleep } from './stats.ts';

/** How busy the handlers' thread and the local DynamoDB's thread were (event loop utilization, 0–1). */
export interface ThreadsBusy {
  readonly main: number;
  readonly dynamodb: number;
}

/**
 * Starts measuring how busy the runtime's two threads are; the returned function reports it since the start. Near 1
 * a thread's calls queue behind each other; well under it, a phase waits on round trips rather than on the CPU.
 */
export const threadsBusy = (runtime: { dynamodbUtilization(): EventLoopUtilization }): (() => ThreadsBusy) => {
  const main = performance.eventLoopUtilization();
  const dynamodb = runtime.dynamodbUtilization();
  const since = (now: EventLoopUtilization, was: EventLoopUtilization) =>
    round(performance.eventLoopUtilization(now, was).utilization, 2);
  return () => ({
    main: since(performance.eventLoopUtilization(), main),
    dynamodb: since(runtime.dynamodbUtilization(), dynamodb),
  });
};

/** A `ThreadsBusy` as the reports word it. */
export const busyText = (busy: ThreadsBusy) =>
  `busy share of the handlers' thread ${busy.main}, of the local DynamoDB's thread ${busy.dynamodb} (event loop utilization)`;

export const WRITE_OPERATIONS = ['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems'];
export const READ_OPERATIONS = ['GetItem', 'BatchGetItem', 'Query', 'Scan', 'TransactGetItems'];

/**
 * Pauses the runtime's pollers and returns a wait for the receives already under way to end: one waiting when they
 * paused (a 1 s long poll) may still pick up a message, so a scenario that fills a queue with them paused waits until
 * 1.2 s after the pause, only what is left of it after its own setup (a fixed 1.2 s after the setup until
 * 27 November 2026).
 */
export const pausePollers = (runtime: { setPollersPaused(paused: boolean): void }) => {
  runtime.setPollersPaused(true);
  const pausedAt = performance.now();
  return () => sleep(Math.max(0, pausedAt + 1_200 - performance.now()));
};

/**
 * How many batches each queue's consumer handles at once in the drains the `worker` and `flows` scenarios time: its
 * catalog `maxConcurrency` (the ingest and flow workers: 20), as Lambda runs it deployed, unless `BENCH_POLLERS` gives
 * a number (`BENCH_POLLERS=2`: the local runtime's default, what these drains ran at before 28 November 2026). At 2,
 * neither the handlers' thread nor DynamoDB's was kept busy (0.74 and 0.66 in the worker's drain): the drains timed
 * round trips more than work, while the raw-put reference they are divided by runs 32 loops at once.
 */
export const drainPollers = (): number | 'catalog' => {
  const given = process.env.BENCH_POLLERS;
  if (given === undefined || given === '') return 'catalog';
  const count = Number(given);
  if (!Number.isInteger(count) || count < 1) throw new Error(`BENCH_POLLERS must be a positive integer, not ${given}`);
  return count;
};

/** {@link drainPollers} as the reports word it. */
export const pollersText = (pollers: number | 'catalog') =>
  pollers === 'catalog'
    ? 'each consumer handling as many batches at once as its catalog maxConcurrency lets it deployed (BENCH_POLLERS=N: N)'
    : `each consumer handling up to ${pollers} batches at once (BENCH_POLLERS; its catalog maxConcurrency at most)`;

/** Total of the named operations in a count by operation. */
export const sumOf = (counts: Record<string, number>, names: readonly string[]): number =>
  names.reduce((total, name) => total + (counts[name] ?? 0), 0);

/** `after − before` per operation, zero differences left out. */
export const countDelta = (before: Record<string, number>, after: Record<string, number>): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const name of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const value = (after[name] ?? 0) - (before[name] ?? 0);
    if (value !== 0) out[name] = value;
  }
  return out;
};

export interface QueueDepth {
  readonly visible: number;
  readonly inFlight: number;
  readonly total: number;
}

export const queueDepth = async (sqs: SQSClient, queueUrl: string): Promise<QueueDepth> => {
  const { Attributes = {} } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  const visible = Number(Attributes.ApproximateNumberOfMessages ?? 0);
  const inFlight = Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0);
  return { visible, inFlight, total: visible + inFlight };
};

/** Creates `count` direct-API stores with a little parallelism; returns their API keys. */
export const createStores = async (count: number, name = 'Bench store'): Promise<string[]> => {
  const deps = storeAdminDeps();
  const keys: string[] = new Array(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      keys[i] = (await createStore(deps, { name: `${name} ${i + 1}`, type: 'direct' })).apiKey;
    }
  };
  await Promise.all(Array.from({ length: Math.min(8, count) }, worker));
  return keys;
};

/** The EventBridge Scheduler operation a request to the emulator is (its REST route), e.g. `UpdateSchedule`. */
const schedulerOperation = (method: string | undefined, url: string | undefined): string => {
  const path = (url ?? '').split('?')[0] ?? '';
  if (!path.startsWith('/schedules/')) return `${method} ${path}`;
  const verb = { POST: 'Create', PUT: 'Update', GET: 'Get', DELETE: 'Delete' }[method ?? ''];
  return verb ? `${verb}Schedule` : `${method} /schedules/{Name}`;
};

/**
 * Counts the requests the Scheduler emulator serves (same process: Node's `http.server.request.start` diagnostics
 * channel, filtered on the emulator's port), by operation. `stop()` ends the count and returns it.
 */
export const countSchedulerCalls = (emulatorsUrl: string): { stop(): Record<string, number> } => {
  const port = Number(new URL(emulatorsUrl).port);
  const counts: Record<string, number> = {};
  const onRequest = (message: unknown) => {
    const { request, socket } = message as { request: IncomingMessage; socket: Socket };
    if (socket.localPort !== port || request.headers['x-amz-target'] !== undefined) return; // Secrets Manager
    const operation = schedulerOperation(request.method, request.url);
    counts[operation] = (counts[operation] ?? 0) + 1;
  };
  subscribe('http.server.request.start', onRequest);
  return {
    stop() {
      unsubscribe('http.server.request.start', onRequest);
      return { ...counts };
    },
  };
};
