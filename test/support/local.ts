/** Helpers for tests that run against the local runtime: stores, calls to the general event interface, polling. */
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { LocalRuntime } from '#local/runtime.ts';
import { createStore } from '#shared/domain/stores/manage-stores.ts';
import { processWide } from '#shared/lazy.ts';
import { storeAdminDeps } from '#shared/wiring/store-admin.ts';

export interface TestStore {
  readonly storeId: string;
  readonly apiKey: string;
}

/** A fresh direct-API store (call after the runtime started: the adapters read its environment). */
export const newStore = async (name = 'Test Store'): Promise<TestStore> => {
  const { store, apiKey } = await createStore(storeAdminDeps(), { name, type: 'direct' });
  return { storeId: store.storeId, apiKey };
};

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Record<string, unknown>;
}

/** `POST /api/v1/events` as a merchant's integration would send it; `body` is sent as is when it is a string. */
export const postEvent = async (
  mainUrl: string,
  apiKey: string | undefined,
  body: unknown,
  options: { contentType?: string } = {},
): Promise<Answer> => {
  const headers: Record<string, string> = { 'content-type': options.contentType ?? 'application/json' };
  if (apiKey !== undefined) headers['x-service-access-token'] = apiKey;
  const response = await fetch(`${mainUrl}/api/v1/events`, {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: JSON.parse(text) as Record<string, unknown> };
};

/** Polls `probe` until it returns a value (not `undefined`), for at most `timeoutMs`. */
export const eventually = async <T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 10_000,
): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

// Made on first use after each runtime start: the runtime sets the SQS endpoint and the region in process.env.
export const sqs = processWide(() => new SQSClient({}));

/** True when the queue holds no message: visible, in flight or delayed. */
export const queueIsEmpty = async (queueUrl: string): Promise<boolean> => {
  const { Attributes = {} } = await sqs().send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: [
        'ApproximateNumberOfMessages',
        'ApproximateNumberOfMessagesNotVisible',
        'ApproximateNumberOfMessagesDelayed',
      ],
    }),
  );
  return (
    Attributes.ApproximateNumberOfMessages === '0' &&
    Attributes.ApproximateNumberOfMessagesNotVisible === '0' &&
    (Attributes.ApproximateNumberOfMessagesDelayed ?? '0') === '0'
  );
};

/** The DynamoDB calls the runtime served while `work` ran, by operation (those with none left out). */
export const dynamodbCallsDuring = async (
  runtime: Pick<LocalRuntime, 'dynamodbCalls'>,
  work: () => Promise<unknown>,
): Promise<Record<string, number>> => {
  const before = runtime.dynamodbCalls();
  await work();
  const after = runtime.dynamodbCalls();
  return Object.fromEntries(
    Object.entries(after)
      .map(([name, n]) => [name, n - (before[name] ?? 0)] as const)
      .filter(([, n]) => n > 0),
  );
};
