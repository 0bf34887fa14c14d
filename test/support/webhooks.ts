/**
 * Helpers of the webhook tests: calls to the webhook management interface, and a real local receiver (node:http on
 * 127.0.0.1) that answers each request as scripted per path and records what it got (method, headers, raw body, time).
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { LocalRuntime } from '#local/runtime.ts';
import type { Answer, TestStore } from './local.ts';
import { eventually, queueIsEmpty } from './local.ts';

/**
 * One call to the main host. A `429` is waited out and retried (as a well-behaved client does) unless `raw` is set:
 * the management interface allows 10 calls per second per store, and tests that are not about the limit must not
 * depend on their own pace.
 */
export const api = async (
  runtime: LocalRuntime,
  apiKey: string | undefined,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  body?: unknown,
  options: { raw?: boolean } = {},
): Promise<Answer> => {
  for (let tries = 0; ; tries++) {
    const headers: Record<string, string> = {};
    if (apiKey !== undefined) headers['x-service-access-token'] = apiKey;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${runtime.urls.main}${path}`, {
      method,
      headers,
      ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    const answer = { status: response.status, headers: response.headers, body: JSON.parse(text) };
    if (answer.status !== 429 || options.raw || tries >= 10) return answer;
    await sleep(Number(response.headers.get('retry-after') ?? '1') * 1000);
  }
};

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface WebhookRecord {
  readonly id: string;
  readonly topic: string;
  readonly url: string;
  readonly format: string;
  readonly createdAt: number;
}

/** `POST /api/v1/webhooks`, asserting success by shape. */
export const subscribe = async (
  runtime: LocalRuntime,
  store: TestStore,
  topic: string,
  url: string,
): Promise<WebhookRecord> => {
  const answer = await api(runtime, store.apiKey, 'POST', '/api/v1/webhooks', { topic, url });
  if (answer.status !== 200 || answer.body.code !== 200) {
    throw new Error(`subscribing ${topic} ${url} failed: ${answer.status} ${JSON.stringify(answer.body)}`);
  }
  return answer.body.data as WebhookRecord;
};

export interface AttemptRecord {
  readonly at: number;
  readonly statusCode?: number;
  readonly latencyMs: number;
  readonly outcome: 'delivered' | 'rejected' | 'timeout' | 'error';
  readonly responseExcerpt?: string;
  readonly error?: string;
}

export interface DeliveryView {
  readonly id: string;
  readonly webhookId: string;
  readonly topic: string;
  readonly url: string;
  readonly status: 'pending' | 'delivered' | 'failed' | 'cancelled';
  readonly reason?: string;
  readonly attempts: AttemptRecord[];
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** `GET /api/v1/webhooks/{id}/deliveries` (first page), asserting success. */
export const deliveriesOf = async (
  runtime: LocalRuntime,
  store: TestStore,
  webhookId: string,
): Promise<DeliveryView[]> => {
  const answer = await api(runtime, store.apiKey, 'GET', `/api/v1/webhooks/${webhookId}/deliveries`);
  if (answer.status !== 200)
    throw new Error(`deliveries of ${webhookId}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return (answer.body.data as { list: DeliveryView[] }).list;
};

/** Waits until the webhook's only delivery satisfies `done`, and returns it. */
export const awaitDelivery = (
  runtime: LocalRuntime,
  store: TestStore,
  webhookId: string,
  done: (delivery: DeliveryView) => boolean,
  timeoutMs = 15_000,
): Promise<DeliveryView> =>
  eventually(
    `a delivery of ${webhookId} to reach the expected state`,
    async () => {
      const [delivery] = await deliveriesOf(runtime, store, webhookId);
      return delivery && done(delivery) ? delivery : undefined;
    },
    timeoutMs,
  );

// ---- The receiver -------------------------------------------------------------------------------------------------

/** A scripted answer: an HTTP status, or `hang` (never answer; the sender's timeout ends it). */
export type Scripted = number | 'hang';

export interface ReceivedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** The body exactly as it arrived. */
  readonly raw: Buffer;
  /** Epoch ms when the request's headers arrived. */
  readonly at: number;
}

export interface Receiver {
  /** `http://127.0.0.1:<port><path>`. */
  url(path: string): string;
  /** Answers for the next requests to `path`, in order; after them `then` (default 200). */
  script(path: string, answers: readonly Scripted[], then?: Scripted): void;
  /** Every request to `path` so far (complete bodies only). */
  received(path: string): ReceivedRequest[];
  /** Waits for at least `count` requests to `path`. */
  waitFor(path: string, count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

export const startReceiver = async (): Promise<Receiver> => {
  const scripts = new Map<string, { answers: Scripted[]; then: Scripted }>();
  const log = new Map<string, ReceivedRequest[]>();
  const hanging = new Set<ServerResponse>();
  const sockets = new Set<Socket>();

  const server = createServer((request, response) => {
    const at = Date.now();
    const path = request.url ?? '/';
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const entry = { method: request.method ?? '', path, headers: request.headers, raw: Buffer.concat(chunks), at };
      log.set(path, [...(log.get(path) ?? []), entry]);
      const script = scripts.get(path);
      const answer = script?.answers.shift() ?? script?.then ?? 200;
      if (answer === 'hang') {
        hanging.add(response);
        response.on('close', () => hanging.delete(response));
        return;
      }
      response.writeHead(answer, { 'content-type': 'text/plain' }).end(`answer ${answer}`);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    script(path, answers, then = 200) {
      scripts.set(path, { answers: [...answers], then });
    },
    received: (path) => [...(log.get(path) ?? [])],
    waitFor: (path, count, timeoutMs = 15_000) =>
      eventually(
        `${count} request(s) to ${path}`,
        async () => {
          const got = log.get(path) ?? [];
          return got.length >= count ? [...got] : undefined;
        },
        timeoutMs,
      ),
    async close() {
      for (const response of hanging) response.destroy();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};

let sequence = 0;
/** A receiver path no other scenario of the file uses. */
export const freshPath = (name: string): string => `/${name}-${++sequence}-${Math.random().toString(36).slice(2, 8)}`;

export { sqs } from './local.ts';

/**
 * Waits until the ingest queue and then the webhook delivery queue hold no message, visible or in flight (twice in a
 * row): every event sent so far was applied and every delivery it queued was attempted and settled. Only meaningful
 * while no delivery of the file waits for a retry.
 */
export const settled = async (runtime: LocalRuntime): Promise<void> => {
  for (const queue of ['ingest', 'webhooks'] as const) {
    let emptyReadings = 0;
    await eventually(`the ${queue} queue to drain`, async () => {
      emptyReadings = (await queueIsEmpty(runtime.queueUrls[queue])) ? emptyReadings + 1 : 0;
      return emptyReadings >= 2 ? true : undefined;
    });
  }
};
