/**
 * The local runtime (architecture §6): queue pollers behave like Lambda's event source mapping (partial batch failures,
 * redrive to the DLQ, a failed invocation returns the batch), the `/_local/` clock route, and state that survives a
 * restart when the runtime runs on a state directory.
 */

import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ReceiveMessageCommand, SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSEvent } from 'aws-lambda';
import { type FauxqsServer, startFauxqs } from 'fauxqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lambdaContext } from '#local/lambda-context.ts';
import { type Poller, pollerClient, type QueueLambda, startPoller } from '#local/poller.ts';
import { type LocalRuntime, type PortName, startLocalRuntime } from '#local/runtime.ts';
import { dynamoCustomerRepository } from '#shared/adapters/dynamodb/customer.repository.ts';
import { ReceiveMessageCommand as PollerReceive } from '#shared/adapters/sqs-client.ts';
import { logger } from '#shared/observability.ts';
import { eventually, newStore, postEvent, type TestStore } from '#test/support/local.ts';

const region = 'us-east-1';
const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };

describe('queue pollers', () => {
  let fauxqs: FauxqsServer;
  let sqs: SQSClient;
  /** The pollers' own client, as the runtime makes it. */
  let pollerSqs: ReturnType<typeof pollerClient>;
  let queues = 0;
  const pollers: Poller[] = [];

  beforeAll(async () => {
    fauxqs = await startFauxqs({ port: 0, logger: false });
    sqs = new SQSClient({ endpoint: fauxqs.address, region, credentials });
    pollerSqs = pollerClient(fauxqs.address);
  });

  afterAll(async () => {
    for (const poller of pollers) await poller.stop();
    sqs?.destroy();
    pollerSqs?.destroy();
    await fauxqs?.stop();
  });

  /** A queue with a 1 s visibility timeout whose messages move to its DLQ after `maxReceiveCount` receives. */
  const queueWithDlq = (maxReceiveCount: number) => {
    const name = `work-${++queues}`;
    const dlq = fauxqs.createQueue(`${name}-dlq`);
    const queue = fauxqs.createQueue(name, {
      attributes: {
        VisibilityTimeout: '1',
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.queueArn, maxReceiveCount }),
      },
    });
    return { ...queue, dlq };
  };

  const sendBodies = (queueUrl: string, bodies: string[]) =>
    sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: bodies.map((b, i) => ({ Id: `${i}`, MessageBody: b })),
      }),
    );

  /** Every message still in the queue, visible, delayed or in flight. */
  const remaining = (name: string): number => {
    const queue = fauxqs.inspectQueue(name);
    if (!queue) throw new Error(`no queue ${name}`);
    return queue.messages.ready.length + queue.messages.delayed.length + queue.messages.inflight.length;
  };

  const poll = (queue: { queueUrl: string; queueArn: string }, invoke: QueueLambda, onError?: (e: unknown) => void) => {
    const poller = startPoller({
      sqs: pollerSqs,
      queueUrl: queue.queueUrl,
      queueArn: queue.queueArn,
      batchSize: 10,
      concurrency: 1,
      invoke,
      context: (): Context => lambdaContext('test-worker', 30),
      ...(onError ? { onError } : {}),
    });
    pollers.push(poller);
    return poller;
  };

  /** Counts how often each body was handed to the handler. */
  const receiptCounter = () => {
    const seen = new Map<string, number>();
    const note = (event: SQSEvent) => {
      for (const record of event.Records) seen.set(record.body, (seen.get(record.body) ?? 0) + 1);
    };
    return { seen, note };
  };

  it('deletes the records that succeeded and redrives a reported failure to the DLQ after maxReceiveCount', async () => {
    const queue = queueWithDlq(2);
    await sendBodies(queue.queueUrl, ['ok-1', 'poison', 'ok-2']);
    const { seen, note } = receiptCounter();
    const receiveCounts: string[] = [];
    const poller = poll(queue, async (event) => {
      note(event);
      const failed = event.Records.filter((r) => r.body === 'poison');
      for (const r of failed) receiveCounts.push(r.attributes.ApproximateReceiveCount);
      return { batchItemFailures: failed.map((r) => ({ itemIdentifier: r.messageId })) };
    });

    const dead = await eventually('the poison message in the DLQ', async () => {
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: queue.dlq.queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
      );
      return Messages.length > 0 ? Messages : undefined;
    });
    await poller.stop();

    expect(dead.map((m) => m.Body)).toEqual(['poison']);
    expect(seen.get('poison')).toBe(2);
    expect(receiveCounts).toEqual(['1', '2']);
    expect(seen.get('ok-1')).toBe(1);
    expect(seen.get('ok-2')).toBe(1);
    expect(remaining(queue.queueName)).toBe(0);
  });

  it('gathers records past 10 within the batching window into one batch, and deletes them all', async () => {
    const queue = queueWithDlq(5);
    const bodies = Array.from({ length: 25 }, (_, i) => `m-${i}`);
    for (let i = 0; i < bodies.length; i += 10) await sendBodies(queue.queueUrl, bodies.slice(i, i + 10));
    const batches: number[] = [];
    const { seen, note } = receiptCounter();
    const poller = startPoller({
      sqs: pollerSqs,
      queueUrl: queue.queueUrl,
      queueArn: queue.queueArn,
      batchSize: 100,
      batchingWindowSeconds: 0.5,
      concurrency: 1,
      invoke: async (event) => {
        batches.push(event.Records.length);
        note(event);
        return { batchItemFailures: [] };
      },
      context: (): Context => lambdaContext('test-worker', 30),
    });
    pollers.push(poller);
    await eventually('every message handled', async () => (seen.size === bodies.length ? true : undefined));
    await eventually('every message deleted', async () => (remaining(queue.queueName) === 0 ? true : undefined));
    await poller.stop();
    expect(batches).toEqual([25]);
    expect([...seen.values()].every((n) => n === 1)).toBe(true);
  });

  it('returns the whole batch to the queue when the handler throws', async () => {
    const queue = queueWithDlq(5);
    const bodies = ['a', 'b', 'c'];
    await sendBodies(queue.queueUrl, bodies);
    const { seen, note } = receiptCounter();
    const errors: unknown[] = [];
    let firstBatch: string[] | undefined;
    const poller = poll(
      queue,
      async (event) => {
        note(event);
        if (!firstBatch) {
          firstBatch = event.Records.map((r) => r.body);
          throw new Error('worker crashed');
        }
        return { batchItemFailures: [] };
      },
      (error) => errors.push(error),
    );

    await eventually('the crashed batch handled again and the queue drained', async () =>
      firstBatch?.every((b) => seen.get(b) === 2) && remaining(queue.queueName) === 0 ? true : undefined,
    );
    await poller.stop();

    // Every record of the crashed batch came back exactly once more; nothing was lost or dead-lettered.
    expect(firstBatch?.length).toBeGreaterThan(0);
    for (const body of bodies) expect(seen.get(body)).toBe(firstBatch?.includes(body) ? 2 : 1);
    expect(errors).toHaveLength(1);
    expect(String(errors[0])).toContain('worker crashed');
    expect(remaining(queue.dlq.queueName)).toBe(0);
  });

  /** The runtime's poller client, counting the receives it makes. */
  const countingClient = () => {
    const client = pollerClient(fauxqs.address);
    const send = client.send.bind(client);
    const counts = { receives: 0 };
    client.send = ((command: unknown, options?: unknown) => {
      if (command instanceof PollerReceive) counts.receives++;
      return (send as (c: unknown, o?: unknown) => Promise<unknown>)(command, options);
    }) as typeof client.send;
    return { client, counts };
  };

  it('wakes one receive per message, not one per unit of concurrency', async () => {
    // Each unit of concurrency used to keep a long poll of its own open, and a message woke all of them: at 8, eight
    // receives per message went through the process's HTTP stack (the noisy bench's ~600 empty receives a second).
    const queue = queueWithDlq(5);
    const { client, counts } = countingClient();
    const handled: string[] = [];
    const poller = startPoller({
      sqs: client,
      queueUrl: queue.queueUrl,
      queueArn: queue.queueArn,
      batchSize: 10,
      concurrency: 8,
      invoke: async (event) => {
        handled.push(...event.Records.map((r) => r.body));
        return { batchItemFailures: [] };
      },
      context: (): Context => lambdaContext('test-worker', 30),
    });
    pollers.push(poller);
    // Let every unit of concurrency start polling, then send one message at a time.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const before = counts.receives;
    const messages = 20;
    for (let i = 0; i < messages; i++) {
      await sendBodies(queue.queueUrl, [`one-${i}`]);
      await eventually(`message ${i} handled`, async () => (handled.length === i + 1 ? true : undefined));
    }
    const receives = counts.receives - before;
    await poller.stop();
    client.destroy();
    // One receive takes each message and one more waits for the next (the 1 s long polls that end empty add a few).
    expect(handled).toEqual(Array.from({ length: messages }, (_, i) => `one-${i}`));
    expect(receives).toBeLessThanOrEqual(2 * messages + 5);
  });

  it('runs up to `concurrency` batches at once, and no more', async () => {
    const queue = queueWithDlq(5);
    let inFlight = 0;
    let most = 0;
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const poller = startPoller({
      sqs: pollerSqs,
      queueUrl: queue.queueUrl,
      queueArn: queue.queueArn,
      batchSize: 1,
      concurrency: 3,
      invoke: async () => {
        inFlight++;
        most = Math.max(most, inFlight);
        await gate;
        inFlight--;
        return { batchItemFailures: [] };
      },
      context: (): Context => lambdaContext('test-worker', 30),
    });
    pollers.push(poller);
    await sendBodies(queue.queueUrl, ['c-1', 'c-2', 'c-3', 'c-4', 'c-5']);
    await eventually('three batches running', async () => (inFlight === 3 ? true : undefined));
    // Held there while they run: the other two wait on the queue.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(inFlight).toBe(3);
    release();
    await eventually('every message deleted', async () => (remaining(queue.queueName) === 0 ? true : undefined));
    await poller.stop();
    expect(most).toBe(3);
  });

  it("holds every poller's long poll open at once: a receive never waits for another queue's idle poll to end", async () => {
    // Every poller holds a long poll open, besides its batches' gathering receives and deletes (there was one per queue
    // function and unit of concurrency until 27 November 2026: some 65 at the noisy bench's 8). Behind the HTTP
    // handler's default cap of 50 sockets, the 51st request waited up to a second for another to end. A server that
    // holds every request counts how many arrive at once.
    const held = new Set<ServerResponse>();
    const server = createServer((_request, response) => {
      held.add(response);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = pollerClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    const aborting = new AbortController();
    const loops = 60;
    const receives = Array.from({ length: loops }, (_, i) =>
      client
        .send(new PollerReceive({ QueueUrl: `http://127.0.0.1/000000000000/q-${i}`, WaitTimeSeconds: 1 }), {
          abortSignal: aborting.signal,
        })
        .catch(() => undefined),
    );
    try {
      await eventually(
        `${loops} receives open at the server at once`,
        async () => (held.size === loops ? true : undefined),
        3_000,
      ).catch(() => undefined);
      expect(held.size).toBe(loops);
    } finally {
      aborting.abort();
      await Promise.all(receives);
      client.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('the local runtime', () => {
  let runtime: LocalRuntime;
  let dataDir: string;
  let shop: TestStore;

  beforeAll(async () => {
    // Every request reads the key from the table, so "the key still works" after a restart is really checked.
    process.env.AUTH_CACHE_SECONDS = '0';
    dataDir = await mkdtemp(join(tmpdir(), 'storeflow-runtime-'));
    runtime = await startLocalRuntime({ dataDir });
    shop = await newStore('Restart Shop');
  });

  afterAll(async () => {
    await runtime?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  const advance = (body: string) =>
    fetch(`${runtime.urls.main}/_local/clock/advance`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });

  it('hands out queue URLs on its own SQS endpoint', () => {
    for (const url of [runtime.queueUrls.ingest, runtime.dlqUrls.ingest]) {
      expect(new URL(url).origin).toBe(runtime.urls.sqs);
    }
    expect(process.env.INGEST_QUEUE_URL).toBe(runtime.queueUrls.ingest);
  });

  it('logs at the level it was started with (WARN by default) invocation after invocation', async () => {
    // The handlers' logger is made when this file imports their modules, before the runtime sets its environment.
    for (const id of ['level-1', 'level-2', 'level-3']) {
      const event = {
        endpoint: 'customers/create',
        source_id: id,
        data: { id, email: `${id}@example.com`, created_at: 1_700_000_000 },
      };
      expect((await postEvent(runtime.urls.main, shop.apiKey, event)).status).toBe(200);
    }
    await eventually('the customers stored', () => dynamoCustomerRepository().get(shop.storeId, 'level-3'));
    expect(logger.getLevelName()).toBe('WARN');
  });

  it('moves the timers clock with POST /_local/clock/advance and answers the new offset', async () => {
    const first = await advance(JSON.stringify({ seconds: 3600 }));
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ offsetSeconds: 3600, fired: 0 });
    const second = await advance(JSON.stringify({ seconds: 60 }));
    expect(await second.json()).toEqual({ offsetSeconds: 3660, fired: 0 });
    expect(runtime.clock.offsetMs).toBe(3_660_000);
  });

  it("makes the advanced time the handlers' time: the stats' today is the runtime clock's", async () => {
    await advance(JSON.stringify({ seconds: 2 * 86_400 }));
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    expect(day(runtime.clock.now())).not.toBe(day(Date.now()));
    const answer = await fetch(`${runtime.urls.main}/api/v1/stats`, {
      headers: { 'x-service-access-token': shop.apiKey },
    });
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { data: { to: string } }).data.to).toBe(day(runtime.clock.now()));
  });

  it.each([
    ['a negative number', JSON.stringify({ seconds: -5 })],
    ['a string', JSON.stringify({ seconds: '3600' })],
    ['no seconds', JSON.stringify({})],
    ['malformed JSON', '{"seconds":'],
  ])('answers 400 to a clock advance with %s and leaves the clock alone', async (_, body) => {
    const before = runtime.clock.offsetMs;
    const answer = await advance(body);
    expect(answer.status).toBe(400);
    expect(await answer.json()).toEqual({ message: expect.stringContaining('seconds') });
    expect(runtime.clock.offsetMs).toBe(before);
  });

  it('keeps stores, keys, customers, de-duplication and the clock across a restart on the same state directory', async () => {
    const event = {
      endpoint: 'customers/create',
      source_id: 'before-restart',
      data: { id: 'kept', email: 'kept@example.com', created_at: 1_700_000_000, first_name: 'Kept' },
    };
    expect((await postEvent(runtime.urls.main, shop.apiKey, event)).body).toEqual({ code: 200, message: 'ok' });
    const customers = dynamoCustomerRepository();
    const stored = await eventually('the customer stored', () => customers.get(shop.storeId, 'kept'));
    const offsetMs = runtime.clock.offsetMs;

    const ports = Object.fromEntries(
      (['main', 'front', 'sending', 'mail', 'dynamodb', 'sqs', 'emulators'] as const).map((name) => [
        name,
        Number(new URL(runtime.urls[name]).port),
      ]),
    ) as Record<PortName, number>;
    await runtime.stop();
    runtime = await startLocalRuntime({ dataDir, ports });
    expect(runtime.urls.main).toBe(`http://127.0.0.1:${ports.main}`);

    expect(await customers.get(shop.storeId, 'kept')).toEqual(stored);
    expect(runtime.clock.offsetMs).toBe(offsetMs);
    // The same key authenticates (read from the table: the auth cache is off), and the source_id is remembered.
    expect((await postEvent(runtime.urls.main, shop.apiKey, event)).body).toEqual({
      code: 304,
      message: 'SourceId already exist',
    });
    const update = { endpoint: 'customers/update', source_id: 'after-restart', data: { id: 'kept', city: 'Bergen' } };
    expect((await postEvent(runtime.urls.main, shop.apiKey, update)).body).toEqual({ code: 200, message: 'ok' });
    // Waits for the update's effect, not for a revision: the 304 above also sent the create to the queue again (a
    // retry within 4 minutes might follow a crash before the first send), and fauxqs, which forgets its deduplication
    // ids on a restart, may apply it again first (docs/decisions.md).
    const updated = await eventually('the update applied after the restart', async () => {
      const customer = await customers.get(shop.storeId, 'kept');
      return customer?.city === 'Bergen' ? customer : undefined;
    });
    expect(updated).toMatchObject({ id: stored.id, firstName: 'Kept', city: 'Bergen' });
    expect((await postEvent(runtime.urls.main, `shop_${'z'.repeat(40)}`, update)).status).toBe(401);
  });
});
