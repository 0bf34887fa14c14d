/**
 * Hostile input on both event interfaces (`POST {base}/api/v1/events`, `POST {front}/api/v1/headless/events`):
 * random JSON, mutations of valid events (a field replaced by the wrong type, a huge string, deep nesting, CR/LF and
 * control characters, `__proto__`/`constructor`/`prototype` keys, a key added or removed), invalid UTF-8, truncated
 * bodies, wrong content types, bodies above the limit. Never a 5xx; a refused event stores and queues nothing; no
 * prototype pollution. See support.ts for the invariants.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalRuntime } from '#local/runtime.ts';
import {
  cartData,
  checkoutData,
  customerData,
  headlessCartData,
  headlessPageView,
  orderData,
  productData,
} from '#test/support/harness.ts';
import type { TestStore } from '#test/support/local.ts';
import {
  contentTypes,
  fuzzParameters,
  hostileJson,
  hugeString,
  mutated,
  type Request,
  StorePool,
  shown,
  startRuntime,
  truncated,
  withInvalidUtf8,
} from './support.ts';

let runtime: LocalRuntime;
let pool: StorePool;

beforeAll(async () => {
  runtime = await startRuntime();
  pool = await StorePool.create(4);
});

afterAll(async () => {
  await runtime?.stop();
});

type Iface = 'general' | 'headless';

const url = (iface: Iface) =>
  iface === 'general' ? `${runtime.urls.main}/api/v1/events` : `${runtime.urls.front}/api/v1/headless/events`;

let sequence = 0;
const sourceId = () => `fz-${++sequence}-${Math.random().toString(36).slice(2, 8)}`;

/** Valid events of each interface: the seeds the mutations start from. */
const VALID: Record<Iface, () => Record<string, unknown>[]> = {
  general: () => [
    { endpoint: 'customers/create', source_id: sourceId(), data: customerData(`c-${sequence}`) },
    { endpoint: 'products/create', source_id: sourceId(), data: productData(`p-${sequence}`) },
    { endpoint: 'orders/create', source_id: sourceId(), data: orderData(`o-${sequence}`) },
    { endpoint: 'carts/create', source_id: sourceId(), data: cartData(`t-${sequence}`) },
    { endpoint: 'checkouts/create', source_id: sourceId(), data: checkoutData(`k-${sequence}`) },
    { endpoint: 'flow/notify', source_id: sourceId(), data: { flow_id: 'f-1', email: 'a@example.com', custom: {} } },
  ],
  headless: () => [
    { endpoint: 'page/viewed', source_id: sourceId(), data: headlessPageView() },
    { endpoint: 'carts/create', source_id: sourceId(), data: headlessCartData(`t-${sequence}`) },
    {
      endpoint: 'customers/create',
      source_id: sourceId(),
      data: { id: `c-${sequence}`, created_at: 1_700_000_000, email: 'b@example.com' },
    },
  ],
};

/** Field names of the events, so random objects often hit real fields. */
const KNOWN = [
  'endpoint',
  'source_id',
  'data',
  'id',
  'email',
  'phone',
  'token',
  'line_items',
  'product_id',
  'variant_id',
  'created_at',
  'price',
  'quantity',
  'custom',
  'flow_id',
  'page',
  'url',
  'title',
];

const post =
  (iface: Iface, body: string | Uint8Array, contentType = 'application/json') =>
  (store: TestStore): Request => ({
    method: 'POST',
    url: url(iface),
    headers: { 'x-service-access-token': store.apiKey, ...(contentType ? { 'content-type': contentType } : {}) },
    body,
  });

const seeds = (iface: Iface) => fc.constantFrom(...VALID[iface]());

describe.each<Iface>(['general', 'headless'])('%s event interface under hostile input', (iface) => {
  it('answers random JSON bodies with a 4xx in its shape', async () => {
    await fc.assert(
      fc.asyncProperty(hostileJson(KNOWN), async (body) => {
        const answer = await pool.run(post(iface, body), `${iface} ${shown(body)}`);
        expect(answer.status, shown(body)).toBeGreaterThanOrEqual(400);
      }),
      fuzzParameters(),
    );
  });

  it('never fails on a valid event with one field replaced, added or removed', async () => {
    const arbitrary = seeds(iface).chain((valid) => mutated(valid, KNOWN));
    await fc.assert(
      fc.asyncProperty(arbitrary, async (body) => {
        await pool.run(post(iface, body), `${iface} ${shown(body)}`);
      }),
      fuzzParameters(),
    );
  });

  it('refuses invalid UTF-8, truncated JSON, odd content types and oversized bodies', async () => {
    const raw = seeds(iface).chain((valid) => {
      const text = JSON.stringify(valid);
      return fc.oneof(
        withInvalidUtf8(text).map((body) => ({ body, contentType: 'application/json' })),
        truncated(text).map((body) => ({ body, contentType: 'application/json' })),
        contentTypes.map((contentType) => ({ body: text, contentType })),
        hugeString.map((s) => ({
          body: JSON.stringify({ ...valid, data: { ...(valid.data as object), note: s } }),
          contentType: 'application/json',
        })),
      );
    });
    await fc.assert(
      fc.asyncProperty(raw, async ({ body, contentType }) => {
        await pool.run(post(iface, body, contentType), `${iface} [${contentType}] ${shown(body)}`);
      }),
      fuzzParameters(),
    );
  });
});

describe('after the hostile input', () => {
  it('left every store that refused everything exactly as it was, once the worker applied what was queued', async () => {
    await pool.expectCleanStoresUntouched(runtime, ['ingest']);
    // The mutations kept some events valid: the suite did exercise acceptance too, not only refusals.
    expect(pool.retired.length).toBeGreaterThan(0);
  }, 90_000);
});
