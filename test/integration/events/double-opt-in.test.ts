/**
 * Double opt-in of publishable-key sign-ups on the local runtime: a sign-up giving email consent gets one confirmation
 * email and nothing else; the link's page confirms nothing by itself (link scanners fetch it), its button subscribes
 * the contact and starts the welcome and the flow of a segment of subscribed contacts it now enters; a back-in-stock request through the public key then mails the confirmed address,
 * and still not an address nobody confirmed. A tampered link answers a clear page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamoCustomerRepository } from '#shared/adapters/dynamodb/customer.repository.ts';
import { issuePublishableKey } from '#shared/domain/stores/manage-stores.ts';
import { storeAdminDeps } from '#shared/wiring/store-admin.ts';
import { address, awaitMails, definedFlow, mailsTo, SENDER, settled } from '#test/integration/flows/engine-support.ts';
import { drained } from '#test/support/harness.ts';
import { eventually, newStore, postEvent, type TestStore } from '#test/support/local.ts';
import { api } from '#test/support/webhooks.ts';

const SHOP = 'https://shop.example';

let runtime: LocalRuntime;
let store: TestStore;
let publishable: string;
let sequence = 0;

beforeAll(async () => {
  runtime = await startLocalRuntime({ logLevel: 'ERROR' });
  store = await newStore('Double opt-in');
  publishable = (await issuePublishableKey(storeAdminDeps(), store.storeId, { origins: [SHOP] })).publishableKey;
});
afterAll(async () => {
  await runtime?.stop();
});

const publicEvent = async (endpoint: string, data: Record<string, unknown>) => {
  const response = await fetch(`${runtime.urls.front}/api/v1/headless/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-access-token': publishable, origin: SHOP },
    body: JSON.stringify({ endpoint, source_id: `doi-${++sequence}`, data }),
  });
  expect(response.status).toBe(200);
};

const linkIn = (text: string | undefined): string => {
  const found = /https?:\/\/\S+\/confirm\/[A-Za-z0-9_.-]+/.exec(text ?? '');
  expect(found, text).not.toBeNull();
  return (found as RegExpExecArray)[0];
};

describe('a sign-up through the publishable key', () => {
  it('is confirmed by its owner before anything marketing mails it; then the welcome, and public-key flows, mail it', async () => {
    const steps = [{ type: 'email', from: SENDER, subject: 'Welcome aboard', text: 'Welcome to the shop' }];
    await definedFlow(runtime, store, {
      name: 'Welcome',
      trigger: 'subscription_welcome',
      consent: 'subscribed',
      steps,
    });
    await definedFlow(runtime, store, {
      name: 'Back in stock',
      trigger: 'back_in_stock',
      consent: 'transactional',
      steps: [{ type: 'email', from: SENDER, subject: 'It is back', text: 'Here it is' }],
    });
    // A segment of subscribed contacts: the confirmed contact enters it then, and its flow mails them then.
    const segment = await api(runtime, store.apiKey, 'POST', '/api/v1/segments', {
      name: 'Subscribed',
      conditions: {
        match: 'all',
        conditions: [{ field: 'contact.email_consent', op: 'equals', value: 'subscribed' }],
      },
    });
    expect(segment.status, JSON.stringify(segment.body)).toBe(200);
    const segmentId = (segment.body as { data: { id: string } }).data.id;
    await eventually('the segment built', async () => {
      const read = await api(runtime, store.apiKey, 'GET', `/api/v1/segments/${segmentId}`);
      return (read.body as { data: { status: string } }).data.status === 'ready' || undefined;
    });
    await definedFlow(runtime, store, {
      name: 'Joined the subscribers',
      trigger: 'segment_entered',
      segment_id: segmentId,
      consent: 'subscribed',
      steps: [{ type: 'email', from: SENDER, subject: 'You are in', text: 'Thanks for subscribing' }],
    });
    const owner = address('owner');
    const nobody = address('nobody');
    const subscribed = { state: 'subscribed', opt_in_level: 'single_opt_in', updated_at: 1_700_000_000 };
    await publicEvent('customers/create', {
      id: 'doi-1',
      email: owner,
      created_at: 1_700_000_000,
      email_marketing_consent: subscribed,
    });
    // The same address signed up again (another id): no second confirmation email.
    await publicEvent('customers/create', { id: 'doi-2', email: owner, created_at: 1_700_000_000 });

    const [confirmation] = await awaitMails(runtime, owner, 1);
    await settled(runtime);
    expect(await mailsTo(runtime, owner)).toHaveLength(1);
    expect(confirmation?.subject).toBe('Confirm your subscription to Double opt-in');
    const customers = dynamoCustomerRepository();
    const pending = await customers.get(store.storeId, 'doi-1');
    expect(pending?.emailConsent?.state).toBe('not_subscribed');
    expect(pending?.emailConfirmation).toEqual({ requestedAt: expect.any(Number) });

    const link = linkIn(confirmation?.body.text);
    expect(linkIn(confirmation?.body.html)).toBe(link.replaceAll('&', '&amp;'));
    // GET (what a link scanner does) shows the page and confirms nothing.
    const shown = await fetch(link);
    expect(shown.status).toBe(200);
    expect(await shown.text()).toContain('Confirm my subscription');
    expect((await customers.get(store.storeId, 'doi-1'))?.emailConsent?.state).toBe('not_subscribed');
    // A tampered link: a clear page, not a 500.
    const tampered = await fetch(`${link.slice(0, -2)}xx`, { method: 'POST' });
    expect(tampered.status).toBe(400);
    expect(await tampered.text()).toContain('This confirmation link is not valid');

    const confirmed = await fetch(link, { method: 'POST' });
    expect(confirmed.status).toBe(200);
    expect(await confirmed.text()).toContain('Subscription confirmed');
    for (const id of ['doi-1', 'doi-2']) {
      const contact = await customers.get(store.storeId, id);
      expect(contact?.emailConsent?.state).toBe('subscribed');
      expect(contact?.emailConfirmation?.confirmedAt).toEqual(expect.any(Number));
      expect(contact?.publicSignUp).toBeUndefined();
    }
    // The welcome, once for the address's contacts' first (each contact has its own run; the flow's re-entry rule
    // is per address).
    const afterConfirm = await awaitMails(runtime, owner, 3);
    expect(afterConfirm.map((mail) => mail.subject).sort()).toEqual(
      ['Confirm your subscription to Double opt-in', 'Welcome aboard', 'You are in'].sort(),
    );
    // A second click changes nothing and sends nothing more.
    expect((await fetch(link, { method: 'POST' })).status).toBe(200);

    // Back in stock through the public key: the confirmed address is mailed; an address nobody confirmed is not.
    await postEvent(runtime.urls.main, store.apiKey, {
      endpoint: 'products/create',
      source_id: 'doi-lamp',
      data: {
        id: 'doi-lamp',
        title: 'Lamp',
        src: `${SHOP}/lamp.jpg`,
        purchase_url: `${SHOP}/products/doi-lamp`,
        variants: [{ id: 'doi-lamp-v1', price: '10.00', inventory_quantity: 0 }],
      },
    });
    await drained(runtime);
    await publicEvent('products/back_in_stock', { product_id: 'doi-lamp', email: owner });
    await publicEvent('products/back_in_stock', { product_id: 'doi-lamp', email: nobody });
    await drained(runtime);
    await postEvent(runtime.urls.main, store.apiKey, {
      endpoint: 'products/restock',
      source_id: 'doi-restock',
      data: { product_id: 'doi-lamp' },
    });
    const all = await eventually('the back-in-stock notice', async () => {
      const mails = await mailsTo(runtime, owner);
      return mails.some((mail) => mail.subject === 'It is back') ? mails : undefined;
    });
    await settled(runtime);
    expect(all.filter((mail) => mail.subject === 'Welcome aboard')).toHaveLength(1);
    expect(await mailsTo(runtime, nobody)).toEqual([]);
  });
});
