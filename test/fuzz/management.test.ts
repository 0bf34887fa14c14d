/**
 * Hostile input on the JSON management and sending interfaces: webhooks (`POST`/`PUT /api/v1/webhooks`, ids in
 * `DELETE /webhooks/{id}`, `GET /webhooks/{id}/deliveries`, `POST /webhooks/deliveries/{id}/retry`), flows
 * (`POST /api/v1/flows`, `PUT/GET/DELETE /flows/{id}`), segments (`POST /api/v1/segments`, ids in `/segments/{id}`), senders (`POST /api/v1/senders`, `/senders/{domain}`) and bulk
 * sending (`POST {sending}/api/v1/sending`, `GET /sending/{id}`): random JSON, mutations of valid bodies, invalid
 * UTF-8, truncation, hostile path ids. Never a 5xx, a refused request stores nothing, no prototype pollution (see
 * support.ts); and CR/LF in any field that becomes an email header is refused.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalRuntime } from '#local/runtime.ts';
import type { TestStore } from '#test/support/local.ts';
import {
  fuzzParameters,
  hostileJson,
  mutated,
  nastyString,
  type Request,
  StorePool,
  send,
  shown,
  startRuntime,
  truncated,
  withInvalidUtf8,
} from './support.ts';

let runtime: LocalRuntime;
let pool: StorePool;

/** Each store's own sending domain (registered once; verified at once by the local SES front). */
const domainOf = (store: TestStore) => `fz-${store.storeId.toLowerCase().replace(/[^a-z0-9]/g, '')}.example.com`;

beforeAll(async () => {
  runtime = await startRuntime();
  pool = await StorePool.create(6, async (store) => {
    const answer = await send({
      method: 'POST',
      url: `${runtime.urls.main}/api/v1/senders`,
      headers: { 'x-service-access-token': store.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ domain: domainOf(store) }),
    });
    if (answer.status !== 200) throw new Error(`sender of ${store.storeId}: ${answer.status} ${answer.text}`);
  });
});

afterAll(async () => {
  await runtime?.stop();
});

type Host = 'main' | 'sending';

const call =
  (method: Request['method'], host: Host, path: string, body?: string | Uint8Array) =>
  (store: TestStore): Request => ({
    method,
    url: `${runtime.urls[host]}${path}`,
    headers: {
      'x-service-access-token': store.apiKey,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body }),
  });

/** A body interface: where it is posted and a valid body for a store (the seed of the mutations). */
interface JsonInterface {
  readonly name: string;
  readonly method: 'POST' | 'PUT';
  readonly host: Host;
  readonly path: string;
  readonly valid: (store: TestStore) => Record<string, unknown>;
  readonly known: readonly string[];
}

const sendBody = (store: TestStore, extra: Record<string, unknown> = {}) => ({
  from: { email: `news@${domainOf(store)}`, name: 'The Shop' },
  subject: 'Hello {{firstName}}',
  html: '<p>Hi {{firstName}}</p>',
  text: 'Hi {{firstName}}',
  recipients: [{ address: { email: 'ada@example.com', name: 'Ada' }, substitutionData: { firstName: 'Ada' } }],
  ...extra,
});

const INTERFACES: readonly JsonInterface[] = [
  {
    name: 'webhooks create',
    method: 'POST',
    host: 'main',
    path: '/api/v1/webhooks',
    valid: () => ({ topic: 'customer/newsletter', url: 'http://127.0.0.1:9/hook' }),
    known: ['topic', 'url'],
  },
  {
    name: 'webhooks update',
    method: 'PUT',
    host: 'main',
    path: '/api/v1/webhooks',
    valid: () => ({ topic: 'customer/newsletter', url: 'http://127.0.0.1:9/other' }),
    known: ['topic', 'url', 'id'],
  },
  {
    name: 'flows create (preset)',
    method: 'POST',
    host: 'main',
    path: '/api/v1/flows',
    valid: (store) => ({ preset: 'abandoned_cart', from: { email: `shop@${domainOf(store)}`, name: 'Acme' } }),
    known: ['preset', 'from', 'email', 'name', 'replyTo', 'enabled', 'trigger', 'steps', 'entry', 'conditions'],
  },
  {
    name: 'segments create',
    method: 'POST',
    host: 'main',
    path: '/api/v1/segments',
    valid: () => ({
      name: 'Recent buyers',
      conditions: {
        match: 'all',
        conditions: [
          { field: 'activity.days_since_last_order', op: 'less_than', value: 30 },
          { match: 'any', conditions: [{ field: 'contact.tags', op: 'contains', value: 'vip' }] },
        ],
      },
    }),
    known: ['name', 'conditions', 'match', 'field', 'op', 'value', 'revision'],
  },
  {
    name: 'senders create',
    method: 'POST',
    host: 'main',
    path: '/api/v1/senders',
    valid: (store) => ({ domain: domainOf(store) }),
    known: ['domain'],
  },
  {
    name: 'sending create',
    method: 'POST',
    host: 'sending',
    path: '/api/v1/sending',
    valid: (store) => sendBody(store),
    known: ['from', 'subject', 'html', 'text', 'recipients', 'address', 'email', 'name', 'replyTo', 'headers'],
  },
];

/** Mutations need a store's valid body, so they are built per run from a template store's body. */
const template = (iface: JsonInterface): Record<string, unknown> =>
  iface.valid({ storeId: 'TEMPLATE', apiKey: '' } as TestStore);

/** The template's store-specific domain, swapped for the store's own when the request is sent. */
const forStore = (body: string | Uint8Array, store: TestStore): string | Uint8Array => {
  const from = domainOf({ storeId: 'TEMPLATE', apiKey: '' });
  return typeof body === 'string' ? body.split(from).join(domainOf(store)) : body;
};

describe.each(INTERFACES.map((i) => [i.name, i] as const))('%s under hostile input', (_name, iface) => {
  it('never fails on random JSON, mutations of a valid body, invalid UTF-8 or truncation', async () => {
    const text = JSON.stringify(template(iface));
    const body = fc.oneof(
      { weight: 2, arbitrary: hostileJson(iface.known) },
      { weight: 4, arbitrary: mutated(template(iface), iface.known) },
      { weight: 1, arbitrary: withInvalidUtf8(text) },
      { weight: 1, arbitrary: truncated(text) },
    );
    await fc.assert(
      fc.asyncProperty(body, async (sent) => {
        await pool.run(
          (store) => call(iface.method, iface.host, iface.path, forStore(sent, store))(store),
          `${iface.method} ${iface.path} ${shown(sent)}`,
        );
      }),
      fuzzParameters(60),
    );
  });
});

/** Path ids an attacker may try: other shapes, encodings, traversal, control characters, long ones. */
const hostileId = fc.oneof(
  nastyString,
  fc.string({ minLength: 1, maxLength: 2000 }),
  fc.constantFrom('..', '.', '%2e%2e', '%2F', '%00', 'null', 'undefined', '__proto__', 'constructor', '*', '%'),
);

const ID_ROUTES: readonly { method: Request['method']; host: Host; path: (id: string) => string }[] = [
  { method: 'DELETE', host: 'main', path: (id) => `/api/v1/webhooks/${id}` },
  { method: 'GET', host: 'main', path: (id) => `/api/v1/webhooks/${id}/deliveries` },
  { method: 'POST', host: 'main', path: (id) => `/api/v1/webhooks/deliveries/${id}/retry` },
  { method: 'GET', host: 'main', path: (id) => `/api/v1/flows/${id}` },
  { method: 'DELETE', host: 'main', path: (id) => `/api/v1/flows/${id}` },
  { method: 'GET', host: 'main', path: (id) => `/api/v1/flows/${id}/runs` },
  { method: 'GET', host: 'main', path: (id) => `/api/v1/segments/${id}` },
  { method: 'DELETE', host: 'main', path: (id) => `/api/v1/segments/${id}` },
  { method: 'GET', host: 'main', path: (id) => `/api/v1/segments/${id}/members` },
  { method: 'GET', host: 'main', path: (id) => `/api/v1/senders/${id}` },
  { method: 'DELETE', host: 'main', path: (id) => `/api/v1/senders/${id}` },
  { method: 'GET', host: 'sending', path: (id) => `/api/v1/sending/${id}` },
  { method: 'GET', host: 'main', path: (id) => `/api/v1/batch/${id}` },
  { method: 'POST', host: 'main', path: (id) => `/api/v1/batch/customers/uploads/${id}/start` },
];

describe('ids in paths', () => {
  it('answers hostile ids without a 5xx and without changing anything', async () => {
    // Percent-encoded byte by byte (lone surrogates become U+FFFD), or a raw escape sequence that does not decode:
    // invalid UTF-8, a stray `%`, an encoded slash or traversal.
    const segments = fc.oneof(
      hostileId.map((id) => [...Buffer.from(id, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')),
      fc.constantFrom('%ff', '%c3%28', '%ed%a0%80', '%zz', '%', 'a%2Fb', '..%2F..%2Fwebhooks', '%u0041'),
    );
    const arbitrary = fc.tuple(fc.constantFrom(...ID_ROUTES), segments);
    await fc.assert(
      fc.asyncProperty(arbitrary, async ([route, segment]) => {
        const answer = await pool.run(
          call(route.method, route.host, route.path(segment)),
          `${route.method} ${route.path(segment)}`,
        );
        expect(answer.status, `${route.method} ${route.path(segment)}`).not.toBe(200);
      }),
      fuzzParameters(150),
    );
  });
});

describe('header injection in bulk sending', () => {
  /** Every field that ends up in an email header, as a setter on a valid body. */
  const HEADER_FIELDS: readonly [string, (body: Record<string, unknown>, value: string) => void][] = [
    ['subject', (b, v) => Object.assign(b, { subject: v })],
    ['from.name', (b, v) => Object.assign(b, { from: { ...(b.from as object), name: v } })],
    ['replyTo', (b, v) => Object.assign(b, { replyTo: v })],
    [
      'recipients[0].address.name',
      (b, v) => Object.assign(b, { recipients: [{ address: { email: 'ada@example.com', name: v } }] }),
    ],
    ['headers (value)', (b, v) => Object.assign(b, { headers: { 'X-Campaign': v } })],
    ['headers (name)', (b, v) => Object.assign(b, { headers: { [v]: 'yes' } })],
  ];
  const injected = fc
    .tuple(fc.string({ maxLength: 20 }), fc.constantFrom('\r\n', '\n', '\r', '\r\n\r\n'), fc.string({ maxLength: 20 }))
    // Text before the line break: what makes it an injection (a leading or trailing CR/LF is trimmed away).
    .map(([before, eol, after]) => `Hi ${before}${eol}Bcc: victim@example.com${after}`);

  it('refuses CR/LF in subject, from name, reply-to, recipient names and custom headers, storing nothing', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...HEADER_FIELDS), injected, async ([field, set], value) => {
        const context = `${field} = ${JSON.stringify(value)}`;
        const answer = await pool.run((store) => {
          const body = sendBody(store);
          set(body, value);
          return call('POST', 'sending', '/api/v1/sending', JSON.stringify(body))(store);
        }, context);
        expect(answer.status, `${context}: ${answer.text}`).toBe(400);
      }),
      fuzzParameters(60),
    );
  });

  it('accepts the same body without the CR/LF (so the refusals above are about the line break)', async () => {
    const answer = await pool.run(
      (store) => call('POST', 'sending', '/api/v1/sending', JSON.stringify(sendBody(store)))(store),
      'valid send',
    );
    expect(answer.status, answer.text).toBe(200);
  });
});

describe('after the hostile input', () => {
  it('left every store that refused everything exactly as it was', async () => {
    await pool.expectCleanStoresUntouched(runtime, ['webhooks', 'sends', 'flows']);
  }, 90_000);
});
