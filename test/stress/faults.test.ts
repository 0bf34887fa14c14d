/**
 * Injected faults, through middleware on this process's SDK clients
 * (`addClientMiddleware` in `test/support/aws-faults.ts`): the fault sits inside the SDK's retry loop, so the
 * SDK's own retries happen as they would against AWS. Each fault must be handled as designed (retried, answered 5xx so
 * the caller retries, or recorded as failed) and nothing is ever dropped silently:
 *
 * - DynamoDB throttling on the ingest path: a throttle that outlasts the SDK's retries is answered 5xx with no
 *   de-duplication record left behind (the retry is accepted, not answered 304); a short one is absorbed by the SDK;
 * - DynamoDB throttling in the ingest worker: the message is retried until it applies (once); one that never applies
 *   ends in the dead-letter queue, and the store's other events are applied meanwhile;
 * - SQS refusing the ingest send: 503, no record, the retry is accepted;
 * - a webhook receiver that hangs: each attempt is recorded as a timeout and retried on the schedule; one that never
 *   answers ends `failed` after the last retry, its message in the delivery DLQ;
 * - SES throttling a bulk send: the chunk is held back and retried, then sent once; SES refusing it for good: its
 *   recipients are marked failed with SES's reason, and the call is not retried.
 */
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TABLE_NAME } from '#local/resources.ts';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamo } from '#shared/adapters/aws-clients.ts';
import { dynamoCustomerRepository } from '#shared/adapters/dynamodb/customer.repository.ts';
import { keys } from '#shared/adapters/dynamodb/keys.ts';
import { GetCommand } from '#shared/adapters/dynamodb-client.ts';
import { addClientMiddleware, type ClientMiddleware, type ClientService } from '#test/support/aws-faults.ts';
import { customerData, drained, general, sourceId, uid } from '#test/support/harness.ts';
import { eventually, newStore, sqs, type TestStore } from '#test/support/local.ts';
import { bulk, readBatch, recipients, registerDomain, send } from '#test/support/sending.ts';
import { awaitDelivery, freshPath, type Receiver, startReceiver, subscribe } from '#test/support/webhooks.ts';

// Read once per process, at the first use of the configuration: set before the runtime starts.
process.env.WEBHOOK_BACKOFF_BASE_SECONDS = '1';
process.env.WEBHOOK_TIMEOUT_SECONDS = '1';
/** The ingest queue's visibility timeout here: a failed message comes back after it (180 s in the catalog). */
const INGEST_VISIBILITY_SECONDS = 3;

let runtime: LocalRuntime;
let receiver: Receiver;
const removals: (() => void)[] = [];
const customers = dynamoCustomerRepository();

beforeAll(async () => {
  runtime = await startLocalRuntime({
    // The faults make the handlers log errors, as they should; the assertions say what matters.
    logLevel: 'CRITICAL',
    visibilityTimeoutSeconds: { ingest: INGEST_VISIBILITY_SECONDS },
  });
  receiver = await startReceiver();
});

afterEach(() => {
  for (const remove of removals.splice(0)) remove();
});

afterAll(async () => {
  await receiver?.close();
  await runtime?.stop();
});

/** An error as the SDK builds it from a service's answer (the name is what its retry strategy classifies). */
const serviceError = (name: string, status: number, message: string) =>
  Object.assign(new Error(message), {
    name,
    $fault: status >= 500 ? 'server' : 'client',
    $metadata: { httpStatusCode: status },
  });
const throttled = () =>
  serviceError(
    'ProvisionedThroughputExceededException',
    400,
    'The level of configured provisioned throughput was exceeded',
  );

/**
 * Fails the calls of `command` whose input mentions `marker` with `error()`, the first `times` of them (every one by
 * default); returns the number of calls it saw and failed.
 */
const inject = (
  service: ClientService,
  command: string | RegExp,
  marker: string,
  error: () => Error,
  times = Number.POSITIVE_INFINITY,
) => {
  const seen = { calls: 0, failed: 0 };
  const middleware: ClientMiddleware = (next, context) => async (args) => {
    const name = context.commandName ?? '';
    const matches = typeof command === 'string' ? name === command : command.test(name);
    if (matches && JSON.stringify(args.input).includes(marker)) {
      seen.calls++;
      if (seen.failed < times) {
        seen.failed++;
        throw error();
      }
    }
    return next(args);
  };
  removals.push(addClientMiddleware(service, middleware));
  return seen;
};

const customerEvent = (id: string, source = sourceId('fault')) => ({
  endpoint: 'customers/create',
  source_id: source,
  data: customerData(id),
});

const eventRecord = async (storeId: string, source: string) =>
  (
    await dynamo().send(
      new GetCommand({ TableName: TABLE_NAME, Key: keys.event(storeId, source), ConsistentRead: true }),
    )
  ).Item;

const appliedCustomer = (storeId: string, id: string) =>
  eventually(`customer ${id} applied`, async () => customers.get(storeId, id), 30_000);

describe('DynamoDB throttling on the ingest path', () => {
  let store: TestStore;
  beforeAll(async () => {
    store = await newStore('Throttled ingest');
  });

  it('answers 5xx when the de-duplication write stays throttled, keeps no record, and accepts the retry', async () => {
    const id = uid('c');
    const event = customerEvent(id);
    const seen = inject('dynamodb', 'PutItemCommand', `#EVENT#${event.source_id}`, throttled);
    const answer = await general(runtime, store.apiKey, event);
    expect(answer.status).toBe(503);
    expect(answer.body.code).toBe(answer.status);
    // The SDK retried the throttled write before giving up.
    expect(seen.calls).toBeGreaterThan(1);
    expect(await eventRecord(store.storeId, event.source_id)).toBeUndefined();

    for (const remove of removals.splice(0)) remove();
    const retry = await general(runtime, store.apiKey, event);
    expect(retry.body).toEqual({ code: 200, message: 'ok' });
    expect((await appliedCustomer(store.storeId, id)).revision).toBe(1);
  });

  it('removes the record again when the rate-limit write is throttled after it, so the retry is accepted', async () => {
    // A fresh store: its first event pays the rate-limit write (a busy one draws on a lease).
    const fresh = await newStore('Throttled limiter');
    const id = uid('c');
    const event = customerEvent(id);
    const seen = inject('dynamodb', 'UpdateItemCommand', `RATE#${fresh.storeId}#general#`, throttled);
    const answer = await general(runtime, fresh.apiKey, event);
    expect(answer.status).toBe(503);
    expect(seen.calls).toBeGreaterThan(1);
    // The record was written, then removed: no half-accepted event.
    expect(await eventRecord(fresh.storeId, event.source_id)).toBeUndefined();

    for (const remove of removals.splice(0)) remove();
    const retry = await general(runtime, fresh.apiKey, event);
    expect(retry.body).toEqual({ code: 200, message: 'ok' });
    expect((await appliedCustomer(fresh.storeId, id)).revision).toBe(1);
  });

  it('absorbs a short throttle in the SDK: accepted at once, applied once', async () => {
    const id = uid('c');
    const event = customerEvent(id);
    const seen = inject('dynamodb', 'PutItemCommand', `#EVENT#${event.source_id}`, throttled, 2);
    const answer = await general(runtime, store.apiKey, event);
    expect(answer.body).toEqual({ code: 200, message: 'ok' });
    expect(seen).toEqual({ calls: 3, failed: 2 });
    expect((await appliedCustomer(store.storeId, id)).revision).toBe(1);
  });
});

describe('SQS refusing the ingest send', () => {
  it('answers 503, keeps no record, and accepts the retry once the queue takes messages again', async () => {
    const store = await newStore('Queue down');
    const id = uid('c');
    const event = customerEvent(id);
    const unavailable = () => serviceError('ServiceUnavailable', 503, 'Service is unavailable');
    const seen = inject('sqs', /^SendMessage(Batch)?Command$/, event.source_id, unavailable);
    const answer = await general(runtime, store.apiKey, event);
    expect(answer.status).toBe(503);
    expect(answer.body.code).toBe(503);
    expect(seen.calls).toBeGreaterThan(1);
    expect(await eventRecord(store.storeId, event.source_id)).toBeUndefined();

    for (const remove of removals.splice(0)) remove();
    const retry = await general(runtime, store.apiKey, event);
    // Accepted, not "duplicate": the failed attempt left nothing that would make it one.
    expect(retry.body).toEqual({ code: 200, message: 'ok' });
    expect((await appliedCustomer(store.storeId, id)).revision).toBe(1);
  });
});

describe('DynamoDB throttling in the ingest worker', () => {
  it('retries the message until it applies, and applies it once', async () => {
    const store = await newStore('Throttled worker');
    const id = uid('c');
    // More failures in a row than the SDK retries in one call: the worker's first handling fails, the queue hands the
    // message over again after the visibility timeout, and a later handling gets through.
    const seen = inject('dynamodb', 'PutItemCommand', `#CUSTOMER#${id}"`, throttled, 5);
    const answer = await general(runtime, store.apiKey, customerEvent(id));
    expect(answer.body).toEqual({ code: 200, message: 'ok' });
    const customer = await appliedCustomer(store.storeId, id);
    expect(customer.revision).toBe(1);
    expect(seen.failed).toBe(5);
    expect(seen.calls).toBeGreaterThan(5);
    await drained(runtime);
  });

  it('moves a message that never applies to the DLQ, after the queue retried it, and applies the others', async () => {
    const store = await newStore('Poisoned worker');
    const stuck = uid('c');
    const other = uid('c');
    const stuckEvent = customerEvent(stuck);
    const seen = inject('dynamodb', 'PutItemCommand', `#CUSTOMER#${stuck}"`, throttled);
    expect((await general(runtime, store.apiKey, stuckEvent)).body).toEqual({ code: 200, message: 'ok' });
    expect((await general(runtime, store.apiKey, customerEvent(other))).body).toEqual({ code: 200, message: 'ok' });
    // Another customer's events are another FIFO group: applied while the first one is retried.
    expect((await appliedCustomer(store.storeId, other)).revision).toBe(1);

    const dead = await eventually(
      'the message in the ingest DLQ',
      async () => {
        const { Messages = [] } = await sqs().send(
          new ReceiveMessageCommand({ QueueUrl: runtime.dlqUrls.ingest, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
        );
        return Messages.find((m) => m.Body?.includes(stuckEvent.source_id));
      },
      // 5 receives, each failed message back after the visibility timeout.
      90_000,
    );
    expect(JSON.parse(dead.Body ?? '{}')).toMatchObject({ storeId: store.storeId, sourceId: stuckEvent.source_id });
    // Each of the queue's 5 receives reached the table (with the SDK's own retries on top).
    expect(seen.calls).toBeGreaterThanOrEqual(5);
    expect(await customers.get(store.storeId, stuck)).toBeUndefined();
  }, 120_000);
});

describe('a webhook receiver that hangs', () => {
  /** A store subscribed to `customer/marketing` at a fresh receiver path; the event makes one delivery. */
  const scenario = async (name: string, answers: readonly ('hang' | number)[], then: 'hang' | number) => {
    const store = await newStore(`Hanging receiver ${name}`);
    const path = freshPath(name);
    receiver.script(path, answers, then);
    const webhook = await subscribe(runtime, store, 'customer/marketing', receiver.url(path));
    const data = customerData(uid('c'), { email_marketing_consent: { state: 'subscribed' } });
    const answer = await general(runtime, store.apiKey, { endpoint: 'customers/create', source_id: sourceId(), data });
    expect(answer.body).toEqual({ code: 200, message: 'ok' });
    return { store, path, webhook };
  };

  it('records each unanswered attempt as a timeout and retries on the schedule until the receiver answers', async () => {
    const s = await scenario('slow', ['hang', 'hang'], 200);
    const delivery = await awaitDelivery(runtime, s.store, s.webhook.id, (d) => d.status === 'delivered', 30_000);
    expect(delivery.attempts.map((a) => a.outcome)).toEqual(['timeout', 'timeout', 'delivered']);
    const requests = receiver.received(s.path);
    expect(requests).toHaveLength(3);
    // Retries after the 1 s timeout plus the ladder's 1 s, then 2 s (base 1 s here; 5, 10, … by default).
    const gaps = requests.slice(1).map((r, i) => r.at - (requests[i]?.at ?? 0));
    expect(gaps[0]).toBeGreaterThanOrEqual(1900);
    expect(gaps[1]).toBeGreaterThanOrEqual(2900);
  }, 40_000);

  it('ends a delivery whose receiver never answers as failed after the last retry, its message in the DLQ', async () => {
    const s = await scenario('dead', [], 'hang');
    const delivery = await awaitDelivery(runtime, s.store, s.webhook.id, (d) => d.status === 'failed', 90_000);
    // The first attempt and the spec's 5 retries, every one a timeout.
    expect(delivery.attempts.map((a) => a.outcome)).toEqual(Array(6).fill('timeout'));
    expect(receiver.received(s.path)).toHaveLength(6);
    const dead = await eventually(
      'the delivery in the webhook DLQ',
      async () => {
        const { Messages = [] } = await sqs().send(
          new ReceiveMessageCommand({
            QueueUrl: runtime.dlqUrls.webhooks,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: 1,
          }),
        );
        return Messages.find((m) => m.Body?.includes(delivery.id));
      },
      30_000,
    );
    expect(dead.Body).toContain(delivery.id);
  }, 120_000);
});

describe('SES failing a bulk send', () => {
  /** A store with a verified sending domain, and a 3-recipient send whose subject marks its SES calls. */
  const bulkSend = async (name: string) => {
    const store = await newStore(`SES ${name}`);
    const domain = `${uid(name)}.example`;
    await registerDomain(runtime, store, domain);
    const subject = `Offer ${uid('subject')}`;
    return { store, subject, body: bulk(domain, { subject, recipients: recipients(3, 'example.com') }) };
  };

  it('holds back a chunk SES throttled and sends it once SES takes it again', async () => {
    const s = await bulkSend('throttled');
    const tooMany = () => serviceError('TooManyRequestsException', 429, 'Maximum sending rate exceeded');
    // More throttles than the SDK retries in one call: the send worker's first attempt fails and it tries again later.
    const seen = inject('sesv2', 'SendBulkEmailCommand', s.subject, tooMany, 5);
    const answer = await send(runtime, s.store, s.body);
    expect(answer.status).toBe(200);
    const id = String(answer.body.id);
    const done = await eventually(
      'the batch sent',
      async () => {
        const read = await readBatch(runtime, s.store, id);
        return read.body.status === 'sent' ? read.body : undefined;
      },
      60_000,
    );
    expect(done).toMatchObject({ sent: 3, failed: 0, pending: 0 });
    expect(seen.failed).toBe(5);
    expect(seen.calls).toBeGreaterThan(5);
  }, 90_000);

  it('marks the recipients failed with the reason when SES refuses for good, and does not try again', async () => {
    const s = await bulkSend('rejected');
    const rejected = () => serviceError('MessageRejected', 400, 'Email address is not verified');
    const seen = inject('sesv2', 'SendBulkEmailCommand', s.subject, rejected);
    const answer = await send(runtime, s.store, s.body);
    expect(answer.status).toBe(200);
    const id = String(answer.body.id);
    const done = await eventually(
      'the batch settled',
      async () => {
        const read = await readBatch(runtime, s.store, id);
        return read.body.status === 'sent' ? read.body : undefined;
      },
      60_000,
    );
    expect(done).toMatchObject({ sent: 0, failed: 3, pending: 0 });
    const failures = done.failures as { error: string }[];
    expect(failures).toHaveLength(3);
    for (const failure of failures) expect(failure.error).toContain('MessageRejected');
    // A permanent error is not retried: not by the SDK, not by the queue (its first retry would come after 10 s).
    const calls = seen.calls;
    expect(calls).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 12_000));
    expect(seen.calls).toBe(calls);
  }, 90_000);
});
