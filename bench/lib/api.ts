/**
 * What the scenarios share to drive the local runtime: a call of the service's JSON API with a store's key (timed),
 * and a wait until chosen queues stay empty.
 */
import { SQSClient } from '@aws-sdk/client-sqs';
import { REGION } from '#local/resources.ts';
import type { LocalRuntime } from '#local/runtime.ts';
import type { QueueName } from '#shared/catalog/queues.ts';
import { queueDepth } from './runtime-probes.ts';
import { sleep } from './stats.ts';

/** An answer's body: `{code, message, data}` for the service's JSON APIs, `{}` when it had none. */
export type ApiBody = { code?: number; message?: string; data?: Record<string, unknown> } & Record<string, unknown>;

/** One API call with the store's key; `ms` is the time to the whole answer. */
export const apiCall = async (url: string, apiKey: string, method = 'GET', body?: unknown) => {
  const start = performance.now();
  const response = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', 'x-service-access-token': apiKey },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return {
    status: response.status,
    body: (text ? JSON.parse(text) : {}) as ApiBody,
    ms: performance.now() - start,
  };
};

/** Waits until `queues` are empty three reads in a row, half a second apart, or `limitMs` has passed. */
export const queuesDrained = async (runtime: LocalRuntime, queues: readonly QueueName[], limitMs: number) => {
  const sqs = new SQSClient({
    region: REGION,
    endpoint: runtime.urls.sqs,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    const deadline = Date.now() + limitMs;
    let quiet = 0;
    while (quiet < 3 && Date.now() < deadline) {
      const depths = await Promise.all(queues.map((queue) => queueDepth(sqs, runtime.queueUrls[queue])));
      quiet = depths.every((depth) => depth.total === 0) ? quiet + 1 : 0;
      await sleep(500);
    }
  } finally {
    sqs.destroy();
  }
};
