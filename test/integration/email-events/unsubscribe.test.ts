/**
 * The public unsubscribe endpoint on the sending host (`/unsubscribe/{token}`, the link in every email's
 * List-Unsubscribe header), over HTTP on the local runtime: `GET` shows a confirmation page and changes nothing; the
 * RFC 8058 one-click `POST` suppresses the address for the store, sets the contact's email consent to unsubscribed and
 * fires `customer/marketing` and `list_unsubscribe`; a repeat changes and sends nothing; a bad token is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamoCustomerRepository } from '#shared/adapters/dynamodb/customer.repository.ts';
import { dynamoSuppressions } from '#shared/adapters/dynamodb/email.repositories.ts';
import { acceptedGeneral, uid } from '#test/support/harness.ts';
import { eventually, newStore, type TestStore } from '#test/support/local.ts';
import { freshPath, type Receiver, settled, startReceiver, subscribe } from '#test/support/webhooks.ts';
import { emailEventsSettled, sendMail, signedBody } from './support.ts';

process.env.WEBHOOK_BACKOFF_BASE_SECONDS = '1';

let runtime: LocalRuntime;
let receiver: Receiver;
const customers = dynamoCustomerRepository();
const suppressions = dynamoSuppressions();

beforeAll(async () => {
  runtime = await startLocalRuntime({ logLevel: 'ERROR' });
  receiver = await startReceiver();
});

afterAll(async () => {
  await receiver?.close();
  await runtime?.stop();
});

interface Scenario {
  readonly store: TestStore;
  readonly customerId: string;
  readonly email: string;
  readonly transmissionId: string;
  readonly url: string;
  readonly marketingPath: string;
  readonly callbackPath: string;
}

/**
 * A store with a subscribed contact, webhooks for `customer/marketing` and `transmission/callback` (subscribed after
 * the contact was created, so they receive only what the unsubscribe causes), and a mail sent to the contact.
 */
const contactWithMail = async (label: string): Promise<Scenario> => {
  const store = await newStore(`Unsubscribe ${label}`);
  const customerId = uid(label);
  const email = `${customerId}@example.com`;
  await acceptedGeneral(runtime, store, 'customers/create', {
    id: customerId,
    email: email.toUpperCase(),
    created_at: 1_700_000_000,
    first_name: 'Ada',
    email_marketing_consent: { state: 'subscribed' },
  });
  await settled(runtime);
  await eventually('the contact to be stored', () => customers.get(store.storeId, customerId));
  const marketingPath = freshPath('marketing');
  const callbackPath = freshPath('callback');
  await subscribe(runtime, store, 'customer/marketing', receiver.url(marketingPath));
  await subscribe(runtime, store, 'transmission/callback', receiver.url(callbackPath));
  const mail = await sendMail(store, email);
  // The delivery callback first, so that what the unsubscribe causes is counted on its own.
  await receiver.waitFor(callbackPath, 1, 20_000);
  return {
    store,
    customerId,
    email,
    transmissionId: mail.transmissionId,
    url: mail.unsubscribeUrl,
    marketingPath,
    callbackPath,
  };
};

const oneClick = (
  url: string,
  body = 'List-Unsubscribe=One-Click',
  contentType = 'application/x-www-form-urlencoded',
) => fetch(url, { method: 'POST', headers: { 'content-type': contentType }, body, redirect: 'manual' });

const isSuppressed = async (s: Scenario) =>
  (await suppressions.suppressedAmong(s.store.storeId, [s.email])).has(s.email);

/** A token with one character of its signature changed. */
const altered = (url: string) => {
  const last = url.at(-1) === 'A' ? 'B' : 'A';
  return `${url.slice(0, -1)}${last}`;
};

describe('GET /unsubscribe/{token}', () => {
  it('shows a confirmation page with a one-click button and unsubscribes nothing', async () => {
    const s = await contactWithMail('page');
    expect(new URL(s.url).origin).toBe(runtime.urls.sending);
    const response = await fetch(s.url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const html = await response.text();
    expect(html).toContain(s.email);
    expect(html).toMatch(/<form method="post">/);
    expect(html).toContain('name="List-Unsubscribe" value="One-Click"');
    // A link scanner's prefetch, twice for good measure.
    await fetch(s.url);
    await emailEventsSettled(runtime);
    expect(await isSuppressed(s)).toBe(false);
    expect((await customers.get(s.store.storeId, s.customerId))?.emailConsent?.state).toBe('subscribed');
    expect(receiver.received(s.marketingPath)).toEqual([]);
    expect(receiver.received(s.callbackPath)).toHaveLength(1);
  });
});

describe('POST /unsubscribe/{token} (RFC 8058 one-click)', () => {
  it('suppresses the address, unsubscribes the contact and fires customer/marketing and list_unsubscribe', async () => {
    const s = await contactWithMail('one-click');
    const response = await oneClick(s.url);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('You are unsubscribed');

    expect(await isSuppressed(s)).toBe(true);
    const contact = await customers.get(s.store.storeId, s.customerId);
    expect(contact?.emailConsent?.state).toBe('unsubscribed');

    const [marketing] = await receiver.waitFor(s.marketingPath, 1, 20_000);
    if (!marketing) throw new Error('no customer/marketing webhook');
    expect(signedBody(marketing, s.store, 'customer/marketing')).toMatchObject({
      id: s.customerId,
      email: s.email,
      email_marketing_consent: { state: 'UNSUBSCRIBED', updated_at: expect.any(Number) },
      sms_marketing_consent: { state: 'NOT_SUBSCRIBED' },
    });
    const requests = await receiver.waitFor(s.callbackPath, 2, 20_000);
    const bodies = requests.map((request) => signedBody(request, s.store, 'transmission/callback'));
    expect(bodies[1]).toEqual({
      eventType: 'list_unsubscribe',
      eventData: { rcpt_to: s.email, transmission_id: s.transmissionId },
    });
  });

  it('changes and sends nothing the second time', async () => {
    const s = await contactWithMail('repeat');
    expect((await oneClick(s.url)).status).toBe(200);
    await receiver.waitFor(s.marketingPath, 1, 20_000);
    await receiver.waitFor(s.callbackPath, 2, 20_000);
    await emailEventsSettled(runtime);
    const before = await customers.get(s.store.storeId, s.customerId);

    const again = await oneClick(s.url);
    expect(again.status).toBe(200);
    await emailEventsSettled(runtime);
    expect(await customers.get(s.store.storeId, s.customerId)).toEqual(before);
    expect(receiver.received(s.marketingPath)).toHaveLength(1);
    expect(receiver.received(s.callbackPath)).toHaveLength(2);
  });

  it('accepts the one-click field sent as multipart/form-data, as RFC 8058 allows', async () => {
    const s = await contactWithMail('multipart');
    const form = new FormData();
    form.set('List-Unsubscribe', 'One-Click');
    const response = await fetch(s.url, { method: 'POST', body: form });
    expect(response.status).toBe(200);
    expect(await isSuppressed(s)).toBe(true);
  });

  it('refuses a POST without List-Unsubscribe=One-Click and changes nothing', async () => {
    const s = await contactWithMail('not-one-click');
    for (const body of ['', 'List-Unsubscribe=Yes', 'confirm=yes']) {
      const response = await oneClick(s.url, body);
      expect(response.status, body).toBe(400);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    }
    expect(await isSuppressed(s)).toBe(false);
  });
});

describe('a bad token', () => {
  it.each([
    ['an altered signature', (url: string) => altered(url)],
    [
      'an altered claim',
      (url: string) => url.replace(/\/unsubscribe\/(.)/, (_, c) => `/unsubscribe/${c === 'e' ? 'f' : 'e'}`),
    ],
    ['no signature', (url: string) => url.slice(0, url.lastIndexOf('.'))],
    ['garbage', (url: string) => `${new URL(url).origin}/unsubscribe/not-a-token`],
    ['a malformed percent-encoding', (url: string) => `${new URL(url).origin}/unsubscribe/%E0%A4%A`],
    ['a token far too long', (url: string) => `${new URL(url).origin}/unsubscribe/${'a'.repeat(5000)}.b`],
  ])('with %s is refused with a 400 page, by GET and POST, and unsubscribes nothing', async (_, spoil) => {
    const s = await contactWithMail('bad-token');
    const url = spoil(s.url);
    expect(url).not.toBe(s.url);
    for (const response of [await fetch(url), await oneClick(url)]) {
      expect(response.status).toBe(400);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await response.text()).toContain('not valid');
    }
    expect(await isSuppressed(s)).toBe(false);
    expect((await customers.get(s.store.storeId, s.customerId))?.emailConsent?.state).toBe('subscribed');
  });
});
