/**
 * The publishable key (`pk_…`) over HTTP on the local runtime: it posts headless events from a browser on an origin the
 * store allows (with CORS headers), never from a server (no Origin), and nothing else; it signs up new customers and
 * changes no existing one, subscribes none of them and starts no flow for them; a page on another origin is refused
 * before anything is recorded; rotating it retires the old one. The browser itself: test/integration/events/
 * publishable-key-browser.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamoCustomerRepository } from '#shared/adapters/dynamodb/customer.repository.ts';
import { dynamoEventLog } from '#shared/adapters/dynamodb/event-log.repository.ts';
import { hashApiKey } from '#shared/domain/stores/api-key.ts';
import { issuePublishableKey, parseOrigin } from '#shared/domain/stores/manage-stores.ts';
import { storeAdminDeps } from '#shared/wiring/store-admin.ts';
import { address, awaitMails, definedFlow, mailsTo, SENDER, settled } from '#test/integration/flows/engine-support.ts';
import { drained, triggersOf } from '#test/support/harness.ts';
import { eventually, newStore, postEvent, type TestStore } from '#test/support/local.ts';
import { api } from '#test/support/webhooks.ts';

const SHOP = 'https://shop.example';
/** The subject of a public sign-up's confirmation email (the store is named `Publishable`). */
const CONFIRMATION = 'Confirm your subscription to Publishable';

let runtime: LocalRuntime;
let store: TestStore;
let publishable: string;
let sequence = 0;

beforeAll(async () => {
  runtime = await startLocalRuntime({ logLevel: 'ERROR' });
  store = await newStore('Publishable');
  publishable = (await issuePublishableKey(storeAdminDeps(), store.storeId, { origins: [SHOP] })).publishableKey;
});
afterAll(async () => {
  await runtime?.stop();
});

const headlessEvent = () => ({
  endpoint: 'customers/create',
  source_id: `pk-${++sequence}`,
  data: { id: `v-${sequence}`, created_at: 1_700_000_000, email: `visitor${sequence}@example.com` },
});

const post = async (key: string, headers: Record<string, string> = {}, body: unknown = headlessEvent()) => {
  const response = await fetch(`${runtime.urls.front}/api/v1/headless/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-access-token': key, ...headers },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, unknown>,
  };
};

describe('the publishable key', () => {
  it('is a pk_ key, and refuses a request without Origin (a server, which has the store key) before recording it', async () => {
    expect(publishable).toMatch(/^pk_[A-Za-z0-9]{40}$/);
    const event = headlessEvent();
    const answer = await post(publishable, {}, event);
    expect(answer).toMatchObject({
      status: 403,
      body: { success: false, message: expect.stringMatching(/^A publishable key \(pk_…\) works from the store's/) },
    });
    expect(answer.headers.get('access-control-allow-origin')).toBeNull();
    expect(await dynamoEventLog().recorded(store.storeId, event.source_id)).toBeUndefined();
  });

  it('signs up a new customer, and changes nothing of an existing one: not its email, dates, names or consent', async () => {
    const known = {
      id: 'known-1',
      email: 'ada@example.com',
      created_at: 1_600_000_000,
      first_name: 'Ada',
      email_marketing_consent: { state: 'unsubscribed', opt_in_level: 'single_opt_in', updated_at: 1_600_000_000 },
    };
    const general = await postEvent(runtime.urls.main, store.apiKey, {
      endpoint: 'customers/create',
      source_id: 'known-by-store-key',
      data: known,
    });
    expect(general.body).toEqual({ code: 200, message: 'ok' });
    const customers = dynamoCustomerRepository();
    const before = await eventually('the store key’s customer', () => customers.get(store.storeId, 'known-1'));

    const takeover = await post(
      publishable,
      { origin: SHOP },
      {
        endpoint: 'customers/create',
        source_id: 'takeover',
        data: { id: 'known-1', created_at: 1_700_000_000, email: 'attacker@evil.example', first_name: 'Eve' },
      },
    );
    expect(takeover.status).toBe(200);
    const signUp = await post(
      publishable,
      { origin: SHOP },
      {
        endpoint: 'customers/create',
        source_id: 'sign-up',
        data: { id: 'new-1', created_at: 1_700_000_000, email: 'new@example.com' },
      },
    );
    expect(signUp.status).toBe(200);
    await drained(runtime);
    expect(await customers.get(store.storeId, 'new-1')).toMatchObject({ email: 'new@example.com' });
    expect(await customers.get(store.storeId, 'known-1')).toEqual(before);
  });

  it('stores the consent a sign-up gives as not subscribed: a public key alone subscribes no address', async () => {
    const given = await post(
      publishable,
      { origin: SHOP },
      {
        endpoint: 'customers/create',
        source_id: 'consent-given',
        data: {
          id: 'consent-1',
          created_at: 1_700_000_000,
          email: 'someone@example.com',
          phone: '+33612345678',
          email_marketing_consent: { state: 'subscribed', opt_in_level: 'single_opt_in', updated_at: 1_700_000_000 },
          sms_marketing_consent: { state: 'subscribed', opt_in_level: 'single_opt_in', updated_at: 1_700_000_000 },
        },
      },
    );
    expect(given.status).toBe(200);
    const implied = await post(
      publishable,
      { origin: SHOP },
      {
        endpoint: 'customers/create',
        source_id: 'consent-implied',
        data: { id: 'consent-2', created_at: 1_700_000_000, email: 'other@example.com' },
      },
    );
    expect(implied.status).toBe(200);
    await drained(runtime);
    const customers = dynamoCustomerRepository();
    const first = await customers.get(store.storeId, 'consent-1');
    expect(first).toMatchObject({ email: 'someone@example.com' });
    expect(first?.emailConsent?.state).toBe('not_subscribed');
    expect(first?.smsConsent?.state).toBe('not_subscribed');
    expect((await customers.get(store.storeId, 'consent-2'))?.emailConsent?.state).toBe('not_subscribed');
  });

  it('starts no flow for a sign-up through it (welcome, segment entered), even one that mails the not subscribed; the store key’s does', async () => {
    // The merchant's flows mail everyone who has not unsubscribed: a stored `not_subscribed` alone would let a public
    // key mail any address typed into a request.
    const segment = await api(runtime, store.apiKey, 'POST', '/api/v1/segments', {
      name: 'Everyone with an address',
      conditions: { match: 'all', conditions: [{ field: 'contact.email', op: 'exists' }] },
    });
    expect(segment.status, JSON.stringify(segment.body)).toBe(200);
    const segmentId = (segment.body as { data: { id: string } }).data.id;
    await eventually('the segment built', async () => {
      const read = await api(runtime, store.apiKey, 'GET', `/api/v1/segments/${segmentId}`);
      return (read.body as { data: { status: string } }).data.status === 'ready' || undefined;
    });
    const steps = [{ type: 'email', from: SENDER, subject: 'Welcome', text: 'Welcome to the shop' }];
    await definedFlow(runtime, store, {
      name: 'Welcome, consent or not',
      trigger: 'subscription_welcome',
      consent: 'not_unsubscribed',
      steps,
    });
    await definedFlow(runtime, store, {
      name: 'Segment entered, consent or not',
      trigger: 'segment_entered',
      segment_id: segmentId,
      consent: 'not_unsubscribed',
      steps,
    });
    const typedIn = address('typed-in');
    const signedUpByStore = address('by-store');
    const subscribed = { state: 'subscribed', opt_in_level: 'single_opt_in', updated_at: 1_700_000_000 };
    const forged = await post(
      publishable,
      { origin: SHOP },
      {
        endpoint: 'customers/create',
        source_id: 'welcome-forged',
        data: { id: 'welcome-pk', created_at: 1_700_000_000, email: typedIn, email_marketing_consent: subscribed },
      },
    );
    expect(forged.status).toBe(200);
    const byStore = await post(
      store.apiKey,
      {},
      {
        endpoint: 'customers/create',
        source_id: 'welcome-store-key',
        data: { id: 'welcome-store', created_at: 1_700_000_000, email: signedUpByStore },
      },
    );
    expect(byStore.body).toEqual({ success: true });

    // The store key's sign-up gets both emails: the flows work.
    await awaitMails(runtime, signedUpByStore, 2);
    await settled(runtime);
    // Only the double opt-in's confirmation email, which asks the address's owner (double-opt-in.test.ts).
    expect((await mailsTo(runtime, typedIn)).map((mail) => mail.subject)).toEqual([CONFIRMATION]);
    const mailing = (await triggersOf(store.storeId)).filter((t) => t.contact.email === typedIn);
    expect(mailing).toEqual([]);
    expect((await dynamoCustomerRepository().get(store.storeId, 'welcome-pk'))?.emailConsent?.state).toBe(
      'not_subscribed',
    );
  });

  it('mails no address it names unless the store knows it: back-in-stock and cart recovery for a typed-in address send nothing', async () => {
    const steps = [{ type: 'email', from: SENDER, subject: 'News for you', text: 'Here it is' }];
    await definedFlow(runtime, store, {
      name: 'Back in stock',
      trigger: 'back_in_stock',
      consent: 'transactional',
      steps,
    });
    await definedFlow(runtime, store, { name: 'Cart', trigger: 'abandoned_cart', consent: 'not_unsubscribed', steps });
    const known = address('known');
    const typedIn = address('typed-in-bis');
    const signedUp = address('signed-up-bis');
    const storeEvent = async (endpoint: string, data: Record<string, unknown>) =>
      expect(
        (await postEvent(runtime.urls.main, store.apiKey, { endpoint, source_id: `sk-${++sequence}`, data })).body,
      ).toEqual({ code: 200, message: 'ok' });
    const publicEvent = async (endpoint: string, data: Record<string, unknown>) =>
      expect(
        (await post(publishable, { origin: SHOP }, { endpoint, source_id: `pk-${++sequence}`, data })).status,
      ).toBe(200);
    await storeEvent('customers/create', { id: 'bis-known', email: known, created_at: 1_700_000_000 });
    await publicEvent('customers/create', { id: 'bis-signed-up', email: signedUp, created_at: 1_700_000_000 });
    await storeEvent('products/create', {
      id: 'bis-lamp',
      title: 'Lamp',
      src: `${SHOP}/lamp.jpg`,
      purchase_url: `${SHOP}/products/bis-lamp`,
      variants: [{ id: 'bis-lamp-v1', price: '10.00', inventory_quantity: 0 }],
    });
    await drained(runtime);
    for (const email of [known, typedIn, signedUp]) {
      await publicEvent('products/back_in_stock', { product_id: 'bis-lamp', email });
    }
    const cart = (token: string, email: string, customer_id?: string) => ({
      token,
      checkout_url: `${SHOP}/cart/${token}`,
      timestamp: 1_700_000_000,
      email,
      ...(customer_id ? { customer_id } : {}),
      line_items: [{ title: 'Lamp', quantity: 1, price: '10.00', product_id: 'bis-lamp' }],
    });
    await publicEvent('carts/create', cart('pk-cart-typed', typedIn));
    // A known customer's id with someone else's address mails neither.
    await publicEvent('carts/create', cart('pk-cart-other', typedIn, 'bis-known'));
    await publicEvent('carts/create', cart('pk-cart-known', known, 'bis-known'));
    await drained(runtime);
    await storeEvent('products/restock', { product_id: 'bis-lamp' });
    await drained(runtime);
    await runtime.advanceClock(3601);

    // The store's own customer gets the notice and the cart reminder; the typed-in and signed-up addresses nothing.
    await awaitMails(runtime, known, 2);
    await settled(runtime);
    expect(await mailsTo(runtime, typedIn)).toEqual([]);
    expect((await mailsTo(runtime, signedUp)).map((mail) => mail.subject)).toEqual([CONFIRMATION]);
    const skipped = await eventually('the skipped evaluations', async () => {
      const runs = await api(
        runtime,
        store.apiKey,
        'GET',
        `/api/v1/flow-activity?email=${encodeURIComponent(typedIn)}`,
      );
      const list = (runs.body as { data: { list: { reason?: string }[] } }).data.list;
      return list.length >= 3 ? list : undefined;
    });
    expect(skipped.map((item) => item.reason)).toEqual([
      'unconfirmed_address',
      'unconfirmed_address',
      'unconfirmed_address',
    ]);
  });

  it('answers a page on an allowed origin with its CORS headers, errors included', async () => {
    const accepted = await post(publishable, { origin: SHOP });
    expect(accepted.status).toBe(200);
    expect(accepted.headers.get('access-control-allow-origin')).toBe(SHOP);
    expect(accepted.headers.get('vary')).toMatch(/origin/i);
    const invalid = await post(
      publishable,
      { origin: SHOP },
      { endpoint: 'customers/create', source_id: 'x', data: {} },
    );
    expect(invalid.status).toBe(412);
    expect(invalid.headers.get('access-control-allow-origin')).toBe(SHOP);
  });

  it("refuses a cart whose links leave the store's site (412 naming the field), recording nothing; the store key may", async () => {
    const token = `phish-${++sequence}`;
    const phishing = {
      endpoint: 'carts/create',
      source_id: `pk-${sequence}`,
      data: {
        token,
        checkout_url: 'https://evil.example/login',
        timestamp: 1_700_000_000,
        email: `mark${sequence}@example.com`,
        line_items: [{ title: 'Your account will be closed: verify now', quantity: 1, price: '1.00', product_id: 'p' }],
      },
    };
    const refused = await post(publishable, { origin: SHOP }, phishing);
    expect(refused.status).toBe(412);
    expect(String(refused.body.message)).toMatch(
      /^data\.checkout_url must link to the store's own site \(shop\.example\)/,
    );
    expect(await dynamoEventLog().recorded(store.storeId, phishing.source_id)).toBeUndefined();

    const own = {
      ...phishing,
      source_id: `pk-own-${sequence}`,
      data: { ...phishing.data, checkout_url: `${SHOP}/cart/${token}` },
    };
    expect((await post(publishable, { origin: SHOP }, own)).status).toBe(200);
    // The merchant's server, with the store key, is not held to it.
    expect((await post(store.apiKey, {}, { ...phishing, source_id: `sk-${sequence}` })).status).toBe(200);
  });

  it('refuses the link forms a mail client follows off the store (no leading //, inside a title), recording nothing', async () => {
    for (const checkout_url of ['https:evil.example/login', '\\\\evil.example/login', 'ht\ntps://evil.example/login']) {
      const event = {
        endpoint: 'carts/create',
        source_id: `pk-form-${++sequence}`,
        data: {
          token: `form-${sequence}`,
          checkout_url,
          timestamp: 1_700_000_000,
          email: `mark${sequence}@example.com`,
          line_items: [{ title: 'Mug', quantity: 1, price: '1.00', product_id: 'p' }],
        },
      };
      const refused = await post(publishable, { origin: SHOP }, event);
      expect(refused.status, JSON.stringify(checkout_url)).toBe(412);
      expect(String(refused.body.message)).toMatch(/^data\.checkout_url must link to the store's own site/);
      expect(await dynamoEventLog().recorded(store.storeId, event.source_id)).toBeUndefined();
    }
    // A link written inside a line title is made clickable by mail clients: held to the same hosts.
    const titled = {
      endpoint: 'carts/create',
      source_id: `pk-title-${++sequence}`,
      data: {
        token: `title-${sequence}`,
        checkout_url: `${SHOP}/cart/title-${sequence}`,
        timestamp: 1_700_000_000,
        email: `mark${sequence}@example.com`,
        line_items: [
          { title: 'Account closing, verify: https://evil.example/login', quantity: 1, price: '1.00', product_id: 'p' },
        ],
      },
    };
    const refused = await post(publishable, { origin: SHOP }, titled);
    expect(refused.status).toBe(412);
    expect(String(refused.body.message)).toMatch(/^data\.line_items\[0\]\.title must link to the store's own site/);
  });

  it('refuses a page on another origin (403) before recording the event', async () => {
    const event = headlessEvent();
    const refused = await post(publishable, { origin: 'https://evil.example' }, event);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({
      message: "Origin https://evil.example is not allowed to use this store's publishable key",
    });
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
    expect(await dynamoEventLog().recorded(store.storeId, event.source_id)).toBeUndefined();
  });

  it('opens nothing else: the export, the general interface and management answer it 401', async () => {
    const headers = { 'x-service-access-token': publishable };
    const exported = await fetch(`${runtime.urls.front}/api/v1/audience?page=1`, { headers });
    expect(exported.status).toBe(401);
    expect(await exported.json()).toMatchObject({ message: expect.stringMatching(/^A publishable key \(pk_…\) only/) });
    const general = await fetch(`${runtime.urls.main}/api/v1/events`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ endpoint: 'customers/create', source_id: 'g-1', data: { id: '1', created_at: 1 } }),
    });
    expect(general.status).toBe(401);
    expect((await fetch(`${runtime.urls.main}/api/v1/webhooks`, { headers })).status).toBe(401);
  });

  it('answers the browser preflight for any origin, naming the method and headers a page may send', async () => {
    const preflight = await fetch(`${runtime.urls.front}/api/v1/headless/events`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://anywhere.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type, x-service-access-token',
      },
    });
    expect(preflight.status).toBe(204);
    expect(Object.fromEntries(preflight.headers)).toMatchObject({
      'access-control-allow-origin': 'https://anywhere.example',
      'access-control-allow-methods': 'POST',
      'access-control-allow-headers': 'content-type, x-service-access-token',
      'access-control-max-age': '600',
    });
  });

  it('keeps its key when only the origins change, and retires the old key when rotated', async () => {
    const deps = storeAdminDeps();
    const same = await issuePublishableKey(deps, store.storeId, {
      origins: [SHOP, 'http://localhost:3000'],
      linkHosts: ['cdn.shop-images.example'],
    });
    expect(same).toEqual({
      publishableKey: publishable,
      allowedOrigins: [SHOP, 'http://localhost:3000'],
      linkHosts: ['cdn.shop-images.example'],
    });
    const rotated = await issuePublishableKey(deps, store.storeId, { rotate: true });
    expect(rotated.publishableKey).not.toBe(publishable);
    expect(rotated.allowedOrigins).toEqual([SHOP, 'http://localhost:3000']);
    expect(rotated.linkHosts).toEqual(['cdn.shop-images.example']);
    expect(await deps.stores.findByKeyHash(hashApiKey(publishable))).toBeUndefined();
    expect(await deps.stores.findByKeyHash(hashApiKey(rotated.publishableKey))).toEqual({
      storeId: store.storeId,
      type: 'direct',
      publishable: { allowedOrigins: [SHOP, 'http://localhost:3000'], linkHosts: ['cdn.shop-images.example'] },
    });
    // The store key is untouched and still the store's secret key.
    expect(await deps.stores.findByKeyHash(hashApiKey(store.apiKey))).toEqual({
      storeId: store.storeId,
      type: 'direct',
    });
  });

  it('takes origins as scheme://host[:port] only', () => {
    expect(parseOrigin('https://Shop.Example')).toBe('https://shop.example');
    expect(parseOrigin('http://127.0.0.1:8080/')).toBe('http://127.0.0.1:8080');
    for (const bad of [
      'shop.example',
      'https://shop.example/page',
      'ftp://shop.example',
      '*',
      'https://a:b@shop.example',
    ]) {
      expect(() => parseOrigin(bad), bad).toThrow();
    }
  });
});
