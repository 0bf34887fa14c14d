/**
 * The tenant-isolation matrix, driven by the function catalog (shared/catalog/functions.ts and its areas/): every HTTP route of the catalog has a row in `MATRIX` saying
 * how store B (its own valid key) is turned against store A's resources, and a separate test fails naming any catalog
 * route without a row. Three kinds of row:
 *
 * - `id`: the route takes an id in its path (webhook, delivery, import job, flow, sender domain, send batch). B asking
 *   for A's id must get exactly the answer B gets for an id that does not exist (status and body, the id itself
 *   masked), and A's resource, read back by A, must be unchanged afterwards (for writes and deletes too);
 * - `store`: the route works on the caller's own store (lists, counts, creates, events, export). B's call must not
 *   show A's data, and A's resources must be unchanged afterwards;
 * - `public`: the route takes no store key by design; the reason is written in the row.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalRuntime } from '#local/runtime.ts';
import { httpFunctions } from '#shared/catalog/functions.ts';
import { createMainAccount, createSubAccount, linkStore } from '#shared/domain/accounts/manage-accounts.ts';
import { accountAdminDeps } from '#shared/wiring/accounts.ts';
import { type Answer, send, startRuntime } from '#test/fuzz/support.ts';
import { headless } from '#test/support/harness.ts';
import { eventually, newStore, type TestStore } from '#test/support/local.ts';
import { type Receiver, startReceiver } from '#test/support/webhooks.ts';

type Host = 'main' | 'front' | 'sending';
type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

let runtime: LocalRuntime;
let receiver: Receiver;
let a: TestStore;
let b: TestStore;

/** A's resources, created once: the ids the matrix turns B against. */
interface Resources {
  webhookId: string;
  deliveryId: string;
  jobId: string;
  flowId: string;
  segmentId: string;
  campaignId: string;
  backtestId: string;
  domain: string;
  batchId: string;
  username: string;
  password: string;
}
let res: Resources;

const call = (store: TestStore | undefined, method: Method, host: Host, path: string, body?: unknown) =>
  send({
    method,
    url: `${runtime.urls[host]}${path}`,
    headers: {
      ...(store ? { 'x-service-access-token': store.apiKey } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

const ok = async (answer: Promise<Answer>, what: string): Promise<Record<string, unknown>> => {
  const got = await answer;
  if (got.status !== 200) throw new Error(`${what}: ${got.status} ${got.text}`);
  return got.json as Record<string, unknown>;
};

const dataOf = (json: Record<string, unknown>) => json.data as Record<string, unknown>;

beforeAll(async () => {
  runtime = await startRuntime();
  receiver = await startReceiver();
  a = await newStore('Isolation A');
  b = await newStore('Isolation B');
  const domain = `iso-${a.storeId.toLowerCase().replace(/[^a-z0-9]/g, '')}.example.com`;

  const webhook = dataOf(
    await ok(
      call(a, 'POST', 'main', '/api/v1/webhooks', { topic: 'customer/newsletter', url: receiver.url('/a') }),
      'webhook',
    ),
  );
  await ok(
    headless(runtime, a.apiKey, {
      endpoint: 'customers/create',
      source_id: 'iso-1',
      data: { id: 'c-1', created_at: 1_700_000_000, email: 'ada@example.com', accepts_marketing: true },
    }).then((r) => ({ status: r.status, headers: r.headers, text: JSON.stringify(r.body), json: r.body })),
    'event',
  );
  const delivery = await eventually('a delivery of A', async () => {
    const list = dataOf(await ok(call(a, 'GET', 'main', `/api/v1/webhooks/${webhook.id}/deliveries`), 'deliveries'))
      .list as { id: string }[];
    return list[0];
  });
  const job = dataOf(
    await ok(call(a, 'POST', 'main', '/api/v1/batch/customers/uploads?append=update&size=1000'), 'upload'),
  );
  await ok(call(a, 'POST', 'main', '/api/v1/senders', { domain }), 'sender');
  await ok(
    call(a, 'PUT', 'main', '/api/v1/settings/sending', {
      timeZone: 'Asia/Tokyo',
      frequencyCap: { minHoursBetween: 16 },
    }),
    'sending settings',
  );
  const flow = dataOf(
    await ok(
      call(a, 'POST', 'main', '/api/v1/flows', {
        preset: 'abandoned_cart',
        from: { email: `shop@${domain}`, name: 'A' },
      }),
      'flow',
    ),
  );
  const segment = dataOf(
    await ok(
      call(a, 'POST', 'main', '/api/v1/segments', {
        name: 'A subscribers',
        conditions: {
          match: 'all',
          conditions: [{ field: 'contact.email_consent', op: 'equals', value: 'subscribed' }],
        },
      }),
      'segment',
    ),
  );
  // Its build done, so that A's snapshots before and after B's calls compare what B could have changed.
  await eventually('A segment built', async () => {
    const got = dataOf(await ok(call(a, 'GET', 'main', `/api/v1/segments/${segment.id}`), 'segment read'));
    return got.status === 'ready' ? got : undefined;
  });
  // Scheduled a month ahead: it stays `scheduled`, so A's snapshots compare what B's calls could have changed.
  const campaign = (
    (await (
      await call(a, 'POST', 'main', '/api/v1/campaigns', {
        name: 'A campaign',
        segments: [segment.id],
        from: { email: `news@${domain}`, name: 'A' },
        subject: 'Hello',
        text: 'Hi',
        sendAt: new Date(Date.now() + 30 * 86_400_000).toISOString(),
      })
    ).json) as { data: { id: string } }
  ).data;
  const batch = (await ok(
    call(a, 'POST', 'sending', '/api/v1/sending', {
      from: { email: `news@${domain}`, name: 'A' },
      subject: 'Hello',
      text: 'Hi',
      recipients: [{ address: { email: 'ada@example.com' } }],
    }),
    'send',
  )) as Record<string, unknown>;
  // A backtest job of A's flow, run to its end so that A's snapshots compare what B's calls could have changed.
  const started = await call(a, 'POST', 'main', `/api/v1/flows/${flow.id}/backtests`, {
    from: 1_767_225_600,
    to: 1_767_312_000,
  });
  const backtestId = String((started.json as { data?: { backtestId?: string } }).data?.backtestId);
  await eventually('A backtest finished', async () => {
    const got = dataOf(await ok(call(a, 'GET', 'main', `/api/v1/flows/${flow.id}/backtests/${backtestId}`), 'job'));
    return got.status === 'succeeded' ? got : undefined;
  });
  const batchId = String((batch.results as { id?: string } | undefined)?.id ?? batch.id ?? dataOf(batch)?.id);

  const deps = accountAdminDeps();
  const main = await createMainAccount(deps, { name: 'Isolation A' });
  await linkStore(deps, { mainAccountId: main.mainAccountId, storeId: a.storeId });
  const password = 'correct-horse-battery-staple';
  const username = `iso-${Date.now()}`;
  await createSubAccount(deps, { mainAccountId: main.mainAccountId, username, password });

  res = {
    webhookId: String(webhook.id),
    deliveryId: delivery.id,
    jobId: String(job.jobId),
    flowId: String(flow.id),
    segmentId: String(segment.id),
    campaignId: String(campaign.id),
    backtestId,
    domain,
    batchId,
    username,
    password,
  };
}, 120_000);

afterAll(async () => {
  await receiver?.close();
  await runtime?.stop();
});

/** An answer body without its `timestamp` fields (when the answer was made, not data): answers then compare. */
const stable = (json: unknown): unknown =>
  JSON.parse(JSON.stringify(json ?? null), (key, value) => (key === 'timestamp' ? '<time>' : value));

/** Everything of A that a route of B could touch, read by A: compared before and after each of B's calls. */
const snapshotOfA = async () => {
  const read = async (method: Method, host: Host, path: string) => {
    const got = await call(a, method, host, path);
    return { status: got.status, body: stable(got.json) };
  };
  return {
    webhooks: await read('GET', 'main', '/api/v1/webhooks'),
    deliveries: await read('GET', 'main', `/api/v1/webhooks/${res.webhookId}/deliveries`),
    job: await read('GET', 'main', `/api/v1/batch/${res.jobId}`),
    flow: await read('GET', 'main', `/api/v1/flows/${res.flowId}`),
    backtest: await read('GET', 'main', `/api/v1/flows/${res.flowId}/backtests/${res.backtestId}`),
    segment: await read('GET', 'main', `/api/v1/segments/${res.segmentId}`),
    members: await read('GET', 'main', `/api/v1/segments/${res.segmentId}/members`),
    campaign: await read('GET', 'main', `/api/v1/campaigns/${res.campaignId}`),
    campaignRecipients: await read('GET', 'main', `/api/v1/campaigns/${res.campaignId}/recipients`),
    senders: await read('GET', 'main', '/api/v1/senders'),
    sendingSettings: await read('GET', 'main', '/api/v1/settings/sending'),
    batch: await read('GET', 'sending', `/api/v1/sending/${res.batchId}`),
  };
};

/** An id of the same shape that does not exist: the last characters changed. */
const missing = (id: string) => `${id.slice(0, -4)}${id.endsWith('zzzz') ? 'yyyy' : 'zzzz'}`;

/** Masks the id in an answer, so that an answer naming the id it was asked about compares equal. */
const masked = (answer: Answer, id: string) => ({
  status: answer.status,
  body: stable(JSON.parse(answer.text.split(id).join('<id>').split(encodeURIComponent(id)).join('<id>'))),
});

interface IdRow {
  readonly kind: 'id';
  /** A's id for this route. */
  readonly id: (r: Resources) => string;
  /** Body B sends (for writes). */
  readonly body?: unknown;
  /** A's ids for the path's other placeholders, by name (the first placeholder takes `id`). */
  readonly rest?: (r: Resources) => Record<string, string>;
}
interface StoreRow {
  readonly kind: 'store';
  /** B's call (path with query, body). */
  readonly path?: string;
  readonly body?: (r: Resources) => unknown;
  /** What A's data would look like in B's answer: B's answer text must not contain any of these. */
  readonly mustNotShow: (r: Resources) => string[];
}
interface PublicRow {
  readonly kind: 'public';
  readonly reason: string;
}
type Row = IdRow | StoreRow | PublicRow;

const A_IDS = (r: Resources) => [
  r.webhookId,
  r.deliveryId,
  r.jobId,
  r.flowId,
  r.segmentId,
  r.campaignId,
  r.backtestId,
  r.domain,
  r.batchId,
  a.storeId,
];

/** One row per catalog route: `METHOD host path`. */
const MATRIX: Record<string, Row> = {
  'POST main /api/v1/events': {
    kind: 'store',
    body: () => ({
      endpoint: 'customers/update',
      source_id: 'iso-b-1',
      data: { id: 'c-1', email: 'evil@example.com' },
    }),
    mustNotShow: A_IDS,
  },
  'POST front /api/v1/headless/events': {
    kind: 'store',
    body: () => ({
      endpoint: 'customers/create',
      source_id: 'iso-b-2',
      data: { id: 'c-1', created_at: 1_700_000_000, email: 'evil@example.com' },
    }),
    mustNotShow: A_IDS,
  },
  'GET main /api/v1/events': {
    kind: 'store',
    // A's event by its source_id: B gets 404, as for an unknown one.
    path: '/api/v1/events?source_id=iso-1',
    mustNotShow: (r) => [...A_IDS(r), 'customers/create', 'accepted_at'],
  },
  'OPTIONS front /api/v1/headless/events': {
    kind: 'public',
    reason: 'The CORS preflight browsers send before a page posts: headers only, it reads and changes nothing',
  },
  'GET front /api/v1/audience': { kind: 'store', mustNotShow: (r) => [...A_IDS(r), 'ada@example.com'] },
  'POST main /api/v1/batch/customers': {
    kind: 'store',
    path: '/api/v1/batch/customers?append=update',
    mustNotShow: A_IDS,
  },
  'POST main /api/v1/batch/customers/uploads': {
    kind: 'store',
    path: '/api/v1/batch/customers/uploads?append=update&size=1000',
    mustNotShow: A_IDS,
  },
  'POST main /api/v1/batch/customers/uploads/{jobId}/start': { kind: 'id', id: (r) => r.jobId },
  'GET main /api/v1/batch/{jobId}': { kind: 'id', id: (r) => r.jobId },
  'POST main /api/v1/webhooks': {
    kind: 'store',
    body: () => ({ topic: 'customer/newsletter', url: 'http://127.0.0.1:9/b' }),
    mustNotShow: A_IDS,
  },
  'PUT main /api/v1/webhooks': {
    kind: 'store',
    body: () => ({ topic: 'customer/newsletter', url: 'http://127.0.0.1:9/b-changed' }),
    mustNotShow: A_IDS,
  },
  'GET main /api/v1/webhooks': { kind: 'store', mustNotShow: (r) => [...A_IDS(r), '/a'] },
  'GET main /api/v1/webhooks/count': { kind: 'store', mustNotShow: A_IDS },
  'DELETE main /api/v1/webhooks/{webHookId}': { kind: 'id', id: (r) => r.webhookId },
  'GET main /api/v1/webhooks/{webHookId}/deliveries': { kind: 'id', id: (r) => r.webhookId },
  'POST main /api/v1/webhooks/deliveries/{deliveryId}/retry': { kind: 'id', id: (r) => r.deliveryId },
  'POST main /api/v1/senders': {
    kind: 'store',
    // B tries to register A's domain: refused, and A's sender stays A's.
    body: (r) => ({ domain: r.domain }),
    mustNotShow: (r) => [r.webhookId, r.flowId, r.batchId, a.storeId],
  },
  'GET main /api/v1/senders': { kind: 'store', mustNotShow: A_IDS },
  'GET main /api/v1/settings/sending': { kind: 'store', mustNotShow: (r) => [...A_IDS(r), 'Asia/Tokyo'] },
  'PUT main /api/v1/settings/sending': {
    kind: 'store',
    // B sets its own settings: A's (Asia/Tokyo, a cap) stay as they were.
    body: () => ({ timeZone: 'Europe/Paris', frequencyCap: null, quietHours: { start: '22:00', end: '07:00' } }),
    mustNotShow: (r) => [...A_IDS(r), 'Asia/Tokyo'],
  },
  'GET main /api/v1/senders/{domain}': { kind: 'id', id: (r) => r.domain },
  'DELETE main /api/v1/senders/{domain}': { kind: 'id', id: (r) => r.domain },
  'POST sending /api/v1/sending': {
    kind: 'store',
    // B sends "from" A's verified domain: refused like any domain B has not registered.
    body: (r) => ({
      from: { email: `news@${r.domain}`, name: 'B' },
      subject: 'Hi',
      text: 'Hi',
      recipients: [{ address: { email: 'x@example.com' } }],
    }),
    mustNotShow: (r) => [r.webhookId, r.flowId, r.batchId, a.storeId],
  },
  'GET sending /api/v1/sending/{id}': { kind: 'id', id: (r) => r.batchId },
  'GET sending /unsubscribe/{token}': {
    kind: 'public',
    reason: 'Opened from an email by a recipient: the signed token (storeId, email, transmission) is the credential',
  },
  'POST sending /unsubscribe/{token}': {
    kind: 'public',
    reason: 'One-click unsubscribe (RFC 8058) from a mail client: the signed token is the credential',
  },
  'GET sending /confirm/{token}': {
    kind: 'public',
    reason:
      'A sign-up confirmation link opened from its email: the signed token (store, contact, address, expiry) is the credential; GET only shows a page',
  },
  'POST sending /confirm/{token}': {
    kind: 'public',
    reason:
      "The confirmation page's button: the signed token is the credential, and it confirms only the pending contacts of the store and address it names",
  },
  'GET main /api/v1/flows/presets': { kind: 'store', mustNotShow: A_IDS },
  'POST main /api/v1/flows': {
    kind: 'store',
    body: () => ({ preset: 'abandoned_cart', from: { email: 'shop@b.example.com', name: 'B' } }),
    mustNotShow: A_IDS,
  },
  'GET main /api/v1/flows': { kind: 'store', mustNotShow: A_IDS },
  'GET main /api/v1/flows/{flowId}': { kind: 'id', id: (r) => r.flowId },
  'PUT main /api/v1/flows/{flowId}': { kind: 'id', id: (r) => r.flowId, body: { name: 'taken over', enabled: false } },
  'DELETE main /api/v1/flows/{flowId}': { kind: 'id', id: (r) => r.flowId },
  'GET main /api/v1/flows/{flowId}/runs': { kind: 'id', id: (r) => r.flowId },
  'GET main /api/v1/flows/{flowId}/stats': { kind: 'id', id: (r) => r.flowId },
  'POST main /api/v1/flows/{flowId}/backtest': {
    kind: 'id',
    id: (r) => r.flowId,
    body: { from: 1_767_225_600, to: 1_767_312_000 },
  },
  'POST main /api/v1/flows/{flowId}/backtests': {
    kind: 'id',
    id: (r) => r.flowId,
    body: { from: 1_767_225_600, to: 1_767_312_000 },
  },
  'GET main /api/v1/flows/{flowId}/backtests/{backtestId}': {
    kind: 'id',
    id: (r) => r.flowId,
    rest: (r) => ({ backtestId: r.backtestId }),
  },
  'GET main /api/v1/stats': { kind: 'store', mustNotShow: A_IDS },
  'POST main /api/v1/segments': {
    kind: 'store',
    body: () => ({
      name: 'B segment',
      conditions: { match: 'all', conditions: [{ field: 'contact.email', op: 'exists' }] },
    }),
    mustNotShow: A_IDS,
  },
  'GET main /api/v1/segments': { kind: 'store', mustNotShow: A_IDS },
  'GET main /api/v1/segments/{segmentId}': { kind: 'id', id: (r) => r.segmentId },
  'PUT main /api/v1/segments/{segmentId}': {
    kind: 'id',
    id: (r) => r.segmentId,
    body: { name: 'taken over', conditions: { match: 'all', conditions: [{ field: 'contact.email', op: 'exists' }] } },
  },
  'DELETE main /api/v1/segments/{segmentId}': { kind: 'id', id: (r) => r.segmentId },
  'GET main /api/v1/segments/{segmentId}/members': { kind: 'id', id: (r) => r.segmentId },
  'POST main /api/v1/campaigns': {
    kind: 'store',
    body: () => ({
      name: 'B campaign',
      segments: ['seg_BBBBBBBBBBBBBBBBBBBB'],
      from: { email: 'news@b.example.com', name: 'B' },
      subject: 'Hi',
      text: 'Hi',
    }),
    mustNotShow: A_IDS,
  },
  'GET main /api/v1/campaigns': { kind: 'store', mustNotShow: A_IDS },
  'GET main /api/v1/campaigns/{campaignId}': { kind: 'id', id: (r) => r.campaignId },
  'POST main /api/v1/campaigns/{campaignId}/cancel': { kind: 'id', id: (r) => r.campaignId },
  'GET main /api/v1/campaigns/{campaignId}/recipients': { kind: 'id', id: (r) => r.campaignId },
  'GET main /api/v1/flow-activity': {
    kind: 'store',
    path: '/api/v1/flow-activity?email=ada%40example.com',
    mustNotShow: A_IDS,
  },
  'POST main /api/v1/oauth': {
    kind: 'store',
    // B's key with A's sub-account credentials: no link (checked against an unknown user below).
    body: (r) => ({ username: r.username, password: r.password }),
    mustNotShow: (r) => [...A_IDS(r), 'oauthUrl'],
  },
  'GET main /oauth/callback': {
    kind: 'public',
    reason: 'Opened in a browser: the single-use sign-in token is the credential, and it names its store',
  },
  'POST main /oauth/callback': {
    kind: 'public',
    reason:
      'The Continue button of the sign-in page: the single-use token in the form is the credential, and it names its store',
  },
  'GET main /back-office': {
    kind: 'public',
    reason: 'Browser page: the session cookie set by the OAuth callback is the credential, scoped to one store',
  },
  'GET main /back-office/stores/{storeId}': {
    kind: 'public',
    reason:
      'Console page: the session cookie is the credential; a store the account may not open answers 404 (test/integration/console/console-browser.test.ts)',
  },
  'GET main /back-office/stores/{storeId}/flows': {
    kind: 'public',
    reason:
      'Console page: the session cookie is the credential; a store the account may not open answers 404 (test/integration/console/console-browser.test.ts)',
  },
  'GET main /back-office/stores/{storeId}/contacts': {
    kind: 'public',
    reason:
      'Console page: the session cookie is the credential; a store the account may not open answers 404, and an address, phone, name or customer id is looked up in the opened store only (test/integration/console/console-contacts.test.ts)',
  },
  'GET main /back-office/stores/{storeId}/new-flow': {
    kind: 'public',
    reason:
      'Console form: the session cookie is the credential; a store the account may not open answers 404 (test/integration/console/console-browser.test.ts)',
  },
  'POST main /back-office/stores/{storeId}/new-flow': {
    kind: 'public',
    reason:
      'Console form post: the session cookie and the Origin check; creates in the opened store only, another answers 404 (test/integration/console/console-browser.test.ts)',
  },
  'GET main /back-office/stores/{storeId}/flows/{flowId}/steps/{stepId}': {
    kind: 'public',
    reason:
      'Console form: the session cookie is the credential; another store, or its flow, answers 404 (test/integration/console/console-browser.test.ts)',
  },
  'POST main /back-office/stores/{storeId}/flows/{flowId}/steps/{stepId}': {
    kind: 'public',
    reason:
      'Console form post: the session cookie and the Origin check; another store, or its flow, answers 404 and changes nothing (test/integration/console/console-browser.test.ts)',
  },
  'GET main /back-office/stores/{storeId}/webhooks': {
    kind: 'public',
    reason:
      'Console page: the session cookie is the credential; a store the account may not open answers 404 (test/integration/console/console-browser.test.ts)',
  },
  'POST main /back-office/stores/{storeId}/webhooks/resend': {
    kind: 'public',
    reason:
      'Console form post: the session cookie and the Origin check; another store’s delivery or subscription answers 404 and is not re-sent (test/integration/console/console-browser.test.ts)',
  },
  'GET main /back-office/stores/{storeId}/senders': {
    kind: 'public',
    reason:
      'Console page: the session cookie is the credential; a store the account may not open answers 404 (test/integration/console/console-browser.test.ts)',
  },
  'POST main /back-office/stores/{storeId}/senders': {
    kind: 'public',
    reason:
      'Console form post: the session cookie and the Origin check; adds or checks a domain of the opened store only (test/integration/console/console-browser.test.ts)',
  },
  'GET main /back-office/stores/{storeId}/imports': {
    kind: 'public',
    reason:
      'Console page: the session cookie is the credential; a store the account may not open answers 404, and only the opened store’s jobs are listed (test/integration/console/console-browser.test.ts)',
  },
  'GET main /back-office/stores/{storeId}/sending': {
    kind: 'public',
    reason:
      'Console page: the session cookie is the credential; a store the account may not open answers 404, and only the opened store’s batches are listed (test/integration/console/console-browser.test.ts)',
  },
  'GET main /back-office/stores/{storeId}/sending/{batchId}': {
    kind: 'public',
    reason:
      'Console page: the session cookie is the credential; another store’s batch answers 404 like a missing one (test/integration/console/console-browser.test.ts)',
  },
  'GET main /back-office/stores/{storeId}/flows/{flowId}': {
    kind: 'public',
    reason:
      'Console page: the session cookie is the credential; another store, or a flow of another store, answers 404 (test/integration/console/console-browser.test.ts)',
  },
  'GET main /back-office/stores/{storeId}/flows/{flowId}/settings': {
    kind: 'public',
    reason:
      'Console form: the session cookie is the credential; another store, or a flow of another store, answers 404 (test/integration/console/console-flow-edit.test.ts)',
  },
  'POST main /back-office/stores/{storeId}/flows/{flowId}/settings': {
    kind: 'public',
    reason:
      'Console form post: the session cookie and the Origin check; another store, or a flow of another store, answers 404 and changes nothing (test/integration/console/console-flow-edit.test.ts)',
  },
  'POST main /back-office/stores/{storeId}/flows/{flowId}/state': {
    kind: 'public',
    reason:
      'Console form: the session cookie and the Origin check; another store, or a flow of another store, answers 404 and changes nothing (test/integration/console/console-browser.test.ts)',
  },
  'GET main /back-office/stores/{storeId}/segments': {
    kind: 'public',
    reason:
      'Console page: the session cookie is the credential; a store the account may not open answers 404, and only the opened store’s segments are listed (test/integration/console/console-segments-campaigns.test.ts)',
  },
  'GET main /back-office/stores/{storeId}/segments/{segmentId}': {
    kind: 'public',
    reason:
      'Console page: the session cookie is the credential; another store, or a segment of another store, answers 404 (test/integration/console/console-segments-campaigns.test.ts)',
  },
  'GET main /back-office/stores/{storeId}/campaigns': {
    kind: 'public',
    reason:
      'Console page: the session cookie is the credential; a store the account may not open answers 404, and only the opened store’s campaigns are listed (test/integration/console/console-segments-campaigns.test.ts)',
  },
  'GET main /back-office/stores/{storeId}/campaigns/{campaignId}': {
    kind: 'public',
    reason:
      'Console page: the session cookie is the credential; another store, or a campaign of another store, answers 404 (test/integration/console/console-segments-campaigns.test.ts)',
  },
  'POST main /back-office/stores/{storeId}/campaigns/{campaignId}/cancel': {
    kind: 'public',
    reason:
      'Console form post: the session cookie and the Origin check; another store, or a campaign of another store, answers 404 and cancels nothing (test/integration/console/console-segments-campaigns.test.ts)',
  },
  'POST main /back-office/sign-out': {
    kind: 'public',
    reason: 'Browser form: ends the caller’s own session (cookie); nothing of a store is read or changed',
  },
  'GET main /api/v1/openapi.json': { kind: 'public', reason: 'The API description, the same for everyone' },
  'GET front /api/v1/openapi.json': { kind: 'public', reason: 'The API description, the same for everyone' },
  'GET sending /api/v1/openapi.json': { kind: 'public', reason: 'The API description, the same for everyone' },
};

/** Every catalog route as `METHOD host path`. */
const catalogRoutes = httpFunctions().flatMap((f) => f.routes.map((r) => `${r.method} ${r.host} ${r.path}`));

describe('the matrix covers the catalog', () => {
  it('has a row for every HTTP route of the catalog (public ones with a reason)', () => {
    const missingRows = catalogRoutes.filter((route) => !(route in MATRIX));
    expect(missingRows, 'catalog routes without an isolation row: add them to MATRIX').toEqual([]);
  });

  it('has no row for a route the catalog no longer has', () => {
    expect(Object.keys(MATRIX).filter((route) => !catalogRoutes.includes(route))).toEqual([]);
  });
});

const rows = (kind: Row['kind']) =>
  catalogRoutes.filter((route) => MATRIX[route]?.kind === kind).map((route) => [route, MATRIX[route]] as const);

const split = (route: string) => {
  const [method, host, path] = route.split(' ') as [Method, Host, string];
  return { method, host, path };
};

describe("store A's resources", () => {
  it('exist and are A’s to read (so the comparisons below are about real resources)', async () => {
    for (const [name, value] of Object.entries(res)) expect(value, name).toMatch(/^[^\s]+$/);
    expect(Object.values(res), JSON.stringify(res)).not.toContain('undefined');
    const snapshot = await snapshotOfA();
    for (const [name, read] of Object.entries(snapshot)) expect(read.status, name).toBe(200);
  });
});

describe("store B against store A's ids", () => {
  it.each(rows('id'))('%s: A’s id answers as a missing one, and A’s resource is unchanged', async (route, row) => {
    const { method, host, path } = split(route);
    const { id, body, rest } = row as IdRow;
    const own = id(res);
    const ghost = missing(own);
    const others = rest?.(res) ?? {};
    const withId = (value: string) =>
      path
        .replace(/\{[^}]+\}/, encodeURIComponent(value))
        .replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(others[name] ?? name));
    const before = await snapshotOfA();
    const onMissing = await call(b, method, host, withId(ghost), body);
    const onA = await call(b, method, host, withId(own), body);
    expect(onA.status, `${route} ${onA.text}`).toBeGreaterThanOrEqual(400);
    expect(masked(onA, own), route).toEqual(masked(onMissing, ghost));
    expect(await snapshotOfA(), `A changed after B's ${route}`).toEqual(before);
  });
});

describe('store B on its own store', () => {
  it.each(rows('store'))('%s: shows nothing of A and changes nothing of A', async (route, row) => {
    const { method, host, path } = split(route);
    const { path: withQuery, body, mustNotShow } = row as StoreRow;
    const before = await snapshotOfA();
    const answer = await call(b, method, host, withQuery ?? path, body?.(res));
    expect(answer.status, `${route} ${answer.text}`).toBeLessThan(500);
    for (const secret of mustNotShow(res)) expect(answer.text, `${route} shows ${secret}`).not.toContain(secret);
    expect(await snapshotOfA(), `A changed after B's ${route}`).toEqual(before);
  });

  it("answers B's key with A's sub-account name and a guessed password exactly as an unknown account", async () => {
    const guessed = 'a-guessed-password-123';
    const withA = await call(b, 'POST', 'main', '/api/v1/oauth', { username: res.username, password: guessed });
    const unknown = await call(b, 'POST', 'main', '/api/v1/oauth', { username: 'nobody-here', password: guessed });
    expect({ status: withA.status, body: stable(withA.json) }).toEqual({
      status: unknown.status,
      body: stable(unknown.json),
    });
  });

  it("gives B no sign-in link for A's sub-account even with its password (401, like an unknown username)", async () => {
    const answer = await call(b, 'POST', 'main', '/api/v1/oauth', { username: res.username, password: res.password });
    expect(answer.status).toBe(401);
    expect(answer.text).not.toContain('oauthUrl');
  });
});

describe('public routes', () => {
  it.each(rows('public'))('%s is public on purpose', (_route, row) => {
    expect((row as PublicRow).reason.length).toBeGreaterThan(20);
  });
});
