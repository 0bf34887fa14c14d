import type { SQSClient } from '@aws-sdk/client-sqs';
import { queuesDrained } from '#bench/lib/api.ts';
import { countDelta, countSchedulerCalls, type QueueDepth, queueDepth } from '#bench/lib/runtime-probes.ts';
import { type CpuShare, cpuMeter, round, Samples, seeded, sleep, summarize } from '#bench/lib/stats.ts';
import { storePacer } from '#bench/lib/store-windows.ts';
import type { ScenarioOptions } from '#bench/scenario.ts';
import type { LocalRuntime } from '#local/runtime.ts';
import { queueFunctions } from '#shared/catalog/functions.ts';
import { LIMITS } from '#shared/limits.ts';

export const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
export const DEFAULT_COUNT = 3_000;
/** The generator keeps each store at 80 % of the spec's limit: a 429 then points at the server, not the bench. */
export const PER_STORE_BUDGET = Math.floor(LIMITS.eventsPerSecond * 0.8);
export const DRAIN_LIMIT_MS = 120_000;
export const POLL_MS = 50;
export const SEED = 0x5eed;
/** A fixed epoch (2023-11-14) for the payloads' timestamps, so the plan does not depend on the day. */
export const T0 = 1_700_000_000;
export const INGEST_BATCH_SIZE = queueFunctions().find((f) => f.name === 'ingest-worker')?.batchSize;
/**
 * The handlers' log level: ERROR unless `POWERTOOLS_LOG_LEVEL` is set (read at import, before any runtime sets it),
 * e.g. WARN to see the worker's retries. The handlers' logger is built once per process, by the first runtime started.
 */
export const LOG_LEVEL = process.env.POWERTOOLS_LOG_LEVEL ?? 'ERROR';

export // ---- The plan: journeys of one shopper (or one catalog change) in one store ----------------------------------------

interface PlannedEvent {
  readonly endpoint: string;
  readonly source_id: string;
  readonly data: Record<string, unknown>;
}

export type JourneyKind = 'browse' | 'abandon' | 'purchase' | 'returning' | 'catalog' | 'notify';

export interface Journey {
  readonly kind: JourneyKind;
  readonly store: number;
  readonly events: PlannedEvent[];
}

/** How often each journey starts, out of 100 (page views and carts dominate a store's traffic, then orders). */
export const JOURNEY_WEIGHTS: readonly (readonly [JourneyKind, number])[] = [
  ['browse', 30],
  ['abandon', 20],
  ['purchase', 18],
  ['returning', 12],
  ['catalog', 10],
  ['notify', 10],
];

/** The events of `count` journeys' worth of traffic over `stores` stores, cut to exactly `count` events. */
export const plan = (count: number, stores: number, sourcePrefix = 'w'): Journey[] => {
  const random = seeded(SEED);
  const int = (below: number) => Math.floor(random() * below);
  const pick = (): JourneyKind => {
    let roll = int(100);
    for (const [kind, weight] of JOURNEY_WEIGHTS) {
      if (roll < weight) return kind;
      roll -= weight;
    }
    return 'browse';
  };
  /** Customers each store already has (from purchases), for returning customers. */
  const known: string[][] = Array.from({ length: stores }, () => []);
  const journeys: Journey[] = [];
  let planned = 0;

  for (let j = 0; planned < count; j++) {
    const store = j % stores;
    const kind = pick();
    const events: PlannedEvent[] = [];
    const add = (endpoint: string, data: Record<string, unknown>) =>
      events.push({ endpoint, source_id: `${sourcePrefix}-${planned + events.length}`, data });

    const email = `shopper${j}@example.com`;
    const customerId = `c-${j}`;
    const productId = () => `p-${int(40)}`;
    const line = (id = productId()) => ({
      product_id: id,
      variant_id: `${id}-v${1 + int(2)}`,
      title: `Product ${id}`,
      quantity: 1 + int(3),
      price: '19.90',
    });
    const view = () => {
      const id = productId();
      return { email, product_id: id, url: `https://shop.example/products/${id}`, timestamp: T0 + j };
    };
    const cart = (lines: object[], extra: Record<string, unknown> = {}) => ({
      token: `cart-${j}`,
      email,
      checkout_url: `https://shop.example/cart/cart-${j}`,
      line_items: lines,
      ...extra,
    });

    switch (kind) {
      case 'browse': {
        for (let n = 1 + int(3); n > 0; n--) add('page/viewed', view());
        break;
      }
      case 'abandon': {
        for (let n = 1 + int(2); n > 0; n--) add('page/viewed', view());
        const lines = [line()];
        add('carts/create', cart(lines));
        for (let n = 1 + int(2); n > 0; n--) {
          lines.push(line());
          add('carts/update', cart([...lines]));
        }
        break;
      }
      case 'purchase': {
        add('customers/create', {
          id: customerId,
          email,
          created_at: T0 + j,
          first_name: 'Ada',
          last_name: `Buyer ${j}`,
          country_code: 'FR',
          tags: ['newsletter'],
          tag_value: 'source:web',
        });
        known[store]?.push(customerId);
        add('page/viewed', view());
        const lines = [line()];
        add('carts/create', cart(lines, { customer_id: customerId }));
        lines.push(line());
        add('carts/update', cart([...lines], { customer_id: customerId }));
        add('checkouts/create', {
          token: `chk-${j}`,
          cart_token: `cart-${j}`,
          email,
          customer_id: customerId,
          currency: 'EUR',
          total_price: '39.80',
          abandoned_checkout_url: `https://shop.example/checkouts/chk-${j}/recover`,
          created_at: T0 + j,
          line_items: lines,
        });
        const order = (status: string) => ({
          id: `o-${j}`,
          customer_id: customerId,
          email,
          name: `#${1000 + j}`,
          order_status: status,
          total_price: '39.80',
          currency: 'EUR',
          cart_token: `cart-${j}`,
          checkout_token: `chk-${j}`,
          created_at: T0 + j,
          line_items: lines.map((l, i) => ({ id: `line-${i + 1}`, ...l })),
        });
        add('orders/create', order('pending'));
        add('orders/paid', { ...order('paid'), payment_at: T0 + j + 60 });
        break;
      }
      case 'returning': {
        const customers = known[store] ?? [];
        const id = customers.length > 0 ? (customers[int(customers.length)] ?? customerId) : customerId;
        add('customers/update', {
          id,
          first_name: 'Grace',
          phone: `+3361234${String(j % 10_000).padStart(4, '0')}`,
          email_marketing_consent: { state: 'subscribed', updatedAt: T0 + j },
        });
        add('page/viewed', { ...view(), email: `${id}@example.com` });
        break;
      }
      case 'catalog': {
        const id = `p-new-${j}`;
        const product = (soldOutStock: number) => ({
          id,
          title: `Desk lamp ${j}`,
          src: `https://shop.example/${id}.jpg`,
          purchase_url: `https://shop.example/products/${id}`,
          handle: `desk-lamp-${j}`,
          created_at: T0 + j,
          variants: [
            { id: `${id}-v1`, sku: `LAMP-${j}-B`, price: '19.90', inventory_quantity: soldOutStock, option1: 'Black' },
            { id: `${id}-v2`, sku: `LAMP-${j}-W`, price: '19.90', inventory_quantity: 7, option1: 'White' },
          ],
        });
        add('products', product(0));
        for (let n = 1 + int(2); n > 0; n--) {
          add('products/back_in_stock', { product_id: id, variant_id: `${id}-v1`, email: `fan${j}-${n}@example.com` });
        }
        add('products/restock', { product_id: id, variant_id: `${id}-v1` });
        add('products', product(12));
        break;
      }
      case 'notify': {
        add('flow/notify', {
          flow_id: `flow-${1 + int(5)}`,
          email,
          first_name: 'Ada',
          custom: { coupon: 'WELCOME10', points: 100 + int(400) },
        });
        break;
      }
    }
    const kept = events.slice(0, count - planned);
    planned += kept.length;
    journeys.push({ kind, store, events: kept });
  }
  return journeys;
};

export // ---- Filling the queue through the API ------------------------------------------------------------------------------

/** Sends every journey, `concurrency` at a time, each journey's events one after the other (so in order). */
const fill = async (
  runtime: LocalRuntime,
  apiKeys: readonly string[],
  journeys: readonly Journey[],
  concurrency: number,
) => {
  const url = `${runtime.urls.main}/api/v1/events`;
  const pacer = storePacer(apiKeys.length, PER_STORE_BUDGET);
  const latencies = new Samples();
  const outcomes: Record<string, number> = {};
  const samples: string[] = [];
  const count = (outcome: string, detail: string) => {
    outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
    if (outcome !== 'accepted' && samples.length < 5) samples.push(`${outcome}: ${detail.slice(0, 300)}`);
  };
  let next = 0;
  const start = performance.now();
  const client = async () => {
    while (next < journeys.length) {
      const journey = journeys[next++];
      if (!journey) break;
      for (const event of journey.events) {
        await pacer.take(journey.store);
        const sent = performance.now();
        try {
          const response = await fetch(url, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-service-access-token': apiKeys[journey.store] ?? '' },
            body: JSON.stringify(event),
          });
          const body = await response.text();
          latencies.push(performance.now() - sent);
          // The events interface answers a duplicate with HTTP 200 and `code: 304` in the body.
          const accepted = response.status === 200 && body.includes('"code":200');
          count(accepted ? 'accepted' : `HTTP ${response.status}`, `${event.endpoint} ${event.source_id} → ${body}`);
        } catch (error) {
          latencies.push(performance.now() - sent);
          count(`error ${(error as { code?: string }).code ?? (error as Error).name}`, String(error));
        }
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, client));
  return {
    elapsedMs: performance.now() - start,
    requests: latencies.length,
    latencyMs: summarize(latencies.toArray()),
    outcomes,
    samples,
    budgetWaits: pacer.waits,
  };
};

export // ---- The measured phase -------------------------------------------------------------------------------------------

/** Resumes the pollers and times the worker until the ingest queue is read empty twice in a row (bounded). */
const drain = async (
  runtime: LocalRuntime,
  sqs: SQSClient,
  queued: number,
  log: (line: string) => void,
  /** Called once the ingest queue is read empty, before the wait for the counts: where the caller's meters stop. */
  onEmpty: () => void = () => undefined,
) => {
  const callsBefore = runtime.dynamodbCalls();
  const scheduler = countSchedulerCalls(runtime.urls.emulators);
  const meter = cpuMeter();
  const start = performance.now();
  runtime.setPollersPaused(false);
  let depth: QueueDepth = { visible: queued, inFlight: 0, total: queued };
  let emptyAt: { ms: number; cpu: CpuShare } | undefined;
  let confirmed = false;
  let maxInFlight = 0;
  let nextLog = start + 5_000;
  let schedulerCalls: Record<string, number> = {};
  try {
    while (performance.now() - start < DRAIN_LIMIT_MS) {
      await sleep(POLL_MS);
      depth = await queueDepth(sqs, runtime.queueUrls.ingest);
      const now = performance.now();
      maxInFlight = Math.max(maxInFlight, depth.inFlight);
      if (depth.total > 0) {
        emptyAt = undefined;
      } else if (emptyAt) {
        confirmed = true;
        break;
      } else {
        // Timed to the first empty reading; the second one only confirms it.
        emptyAt = { ms: now - start, cpu: meter() };
      }
      if (now >= nextLog) {
        log(`worker: ${round((now - start) / 1000, 1)} s, ${depth.visible} queued, ${depth.inFlight} in flight`);
        nextLog += 5_000;
      }
    }
  } finally {
    // Counted until the queue was empty or the wait gave up; the pollers keep running until the runtime stops.
    schedulerCalls = scheduler.stop();
  }
  const end = confirmed && emptyAt ? emptyAt : { ms: performance.now() - start, cpu: meter() };
  onEmpty();
  // The events' counts are written by the counters worker seconds later: its calls are the events' too.
  await queuesDrained(runtime, ['counters'], 15_000);
  const calls = countDelta(callsBefore, runtime.dynamodbCalls());
  const left = confirmed ? 0 : depth.total;
  const applied = queued - left;
  const [dlq, timersDlq] = await Promise.all([
    queueDepth(sqs, runtime.dlqUrls.ingest),
    queueDepth(sqs, runtime.dlqUrls.timers),
  ]);
  return {
    elapsedMs: end.ms,
    cpu: end.cpu,
    queued,
    applied,
    left,
    leftInFlight: confirmed ? 0 : depth.inFlight,
    complete: confirmed,
    maxInFlight,
    perSecond: applied / (end.ms / 1000),
    dlq: dlq.total,
    timersDlq: timersDlq.total,
    dynamodbCalls: calls,
    schedulerCalls,
  };
};

export type Fill = Awaited<ReturnType<typeof fill>>;
export type Drain = Awaited<ReturnType<typeof drain>>;

export const perEvent = (counts: Record<string, number>, events: number) =>
  Object.fromEntries(
    Object.entries(counts)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, n]) => [name, round(n / events, 3)]),
  );

export const countBy = <T>(items: readonly T[], key: (item: T) => string) => {
  const out: Record<string, number> = {};
  for (const item of items) out[key(item)] = (out[key(item)] ?? 0) + 1;
  return Object.fromEntries(Object.entries(out).sort(([, a], [, b]) => b - a));
};

/** An earlier scenario's figure, when that scenario ran before this one in the same invocation. */
export const earlierFigure = (options: ScenarioOptions, scenario: string, key: string): number | undefined =>
  options.earlier?.find((r) => r.scenario === scenario)?.metrics.find((m) => m.key === key)?.value;
