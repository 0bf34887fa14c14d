import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { storePacer } from '#bench/lib/store-windows.ts';
import type { LocalRuntime } from '#local/runtime.ts';
import { FUNCTIONS } from '#shared/catalog/functions.ts';
import { createStore } from '#shared/domain/stores/manage-stores.ts';
import { deliveryIdOf } from '#shared/domain/webhooks/delivery.ts';
import { LIMITS } from '#shared/limits.ts';
import { storeAdminDeps } from '#shared/wiring/store-admin.ts';

export const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
export const DEFAULT_COUNT = 1_000;
/** Events sent one at a time in the idle phase (nearest-rank p99 of 100 samples is the second slowest). */
export const IDLE_SAMPLES = 100;
/** The generator keeps each store at 80 % of the spec's limit: a 429 then points at the server, not the bench. */
export const PER_STORE_BUDGET = Math.floor(LIMITS.eventsPerSecond * 0.8);
export const TOPIC = 'customer/newsletter';
export const APPLY_LIMIT_MS = 120_000;
export const DELIVER_LIMIT_MS = 120_000;
export const SETTLE_LIMIT_MS = 30_000;
export const IDLE_WAIT_MS = 10_000;
export const POLL_MS = 20;
/** A fixed epoch (2023-11-14) for the payloads' `created_at`. */
export const T0 = 1_700_000_000;
/** Same as the worker scenario: ERROR unless `POWERTOOLS_LOG_LEVEL` is set (e.g. WARN to see retried messages). */
export const LOG_LEVEL = process.env.POWERTOOLS_LOG_LEVEL ?? 'ERROR';
export const INGEST_WORKER = FUNCTIONS.find((f) => f.name === 'ingest-worker');
export const DELIVERY_WORKER = FUNCTIONS.find((f) => f.name === 'webhook-delivery-worker');

export // ---- The receiver --------------------------------------------------------------------------------------------------

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
export const startReceiver = async () => {
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
export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

export // ---- Stores, subscriptions and events -----------------------------------------------------------------------------

interface BenchStore {
  readonly storeId: string;
  readonly apiKey: string;
  readonly webhookId: string;
  readonly path: string;
}

/** Direct-API stores, each subscribing `customer/newsletter` to its own path of the receiver (through the API). */
export const createSubscribedStores = async (runtime: LocalRuntime, receiverUrl: string, count: number) => {
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
export const eventOf = (stores: readonly BenchStore[], prefix: string, n: number) => {
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

export const postHeadless = async (runtime: LocalRuntime, apiKey: string, body: string) => {
  const response = await fetch(`${runtime.urls.front}/api/v1/headless/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-access-token': apiKey },
    body,
  });
  const text = await response.text();
  return { accepted: response.status === 200 && text.includes('"success":true'), status: response.status, text };
};

/** Sends events 0…count−1 (`concurrency` at a time, paced per store); every one must be accepted. */
export const sendAll = async (
  runtime: LocalRuntime,
  stores: readonly BenchStore[],
  count: number,
  concurrency: number,
) => {
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
