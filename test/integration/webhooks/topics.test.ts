/**
 * Webhook topic bodies as a receiver gets them (spec "Events" → "Topics"): `customer/newsletter` from a form
 * subscription (headless `customers/create`), and `customer/marketing` when a customer's consent state changes, in
 * format one for direct-API stores and format two for platform stores. Events are sent through the real interfaces and
 * the bodies read off a real local receiver.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamoCustomerRepository } from '#shared/adapters/dynamodb/customer.repository.ts';
import { createStore } from '#shared/domain/stores/manage-stores.ts';
import { storeAdminDeps } from '#shared/wiring/store-admin.ts';
import { acceptedGeneral, acceptedHeadless, uid } from '#test/support/harness.ts';
import { newStore, type TestStore } from '#test/support/local.ts';
import { deliveriesOf, freshPath, type Receiver, settled, startReceiver, subscribe } from '#test/support/webhooks.ts';

process.env.WEBHOOK_BACKOFF_BASE_SECONDS = '1';

let runtime: LocalRuntime;
let receiver: Receiver;
const customers = dynamoCustomerRepository();

beforeAll(async () => {
  runtime = await startLocalRuntime({ logLevel: 'ERROR' });
  receiver = await startReceiver();
});

afterAll(async () => {
  await receiver?.close();
  await runtime?.stop();
});

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** A store subscribed to `topic` at a fresh receiver path. */
const subscribed = async (topic: string, type: 'direct' | 'platform' = 'direct') => {
  const store: TestStore =
    type === 'direct'
      ? await newStore(`Topics ${topic}`)
      : await createStore(storeAdminDeps(), { name: `Topics ${topic} platform`, type }).then(({ store, apiKey }) => ({
          storeId: store.storeId,
          apiKey,
        }));
  const path = freshPath(topic.replace('/', '-'));
  const webhook = await subscribe(runtime, store, topic, receiver.url(path));
  return { store, path, webhook };
};

/** The JSON bodies of the first `count` requests to `path` (waiting for them), with their topic header checked. */
const bodies = async (path: string, count: number, topic: string) => {
  const requests = await receiver.waitFor(path, count, 15_000);
  for (const request of requests) expect(request.headers['x-service-topic']).toBe(topic);
  return requests.map((r) => JSON.parse(r.raw.toString('utf8')) as Record<string, unknown>);
};

/** A number of seconds close to now (the event was handled during the test). */
const aboutNow = (from: number) => ({
  asymmetricMatch: (value: unknown) =>
    typeof value === 'number' && Number.isInteger(value) && value >= from && value <= nowSeconds() + 1,
  toString: () => 'an integer number of seconds close to now',
});

const richCustomer = (id: string) => ({
  id,
  email: `${id}@example.com`,
  // Milliseconds are accepted (spec) and must come out in seconds.
  created_at: 1_700_000_000_000,
  first_name: 'Ada',
  last_name: 'Lovelace',
  phone: '+441234567890',
  country_code: 'GB',
  city: 'London',
  gender: 'female',
  birth_date: '1815-12-10',
});

describe('customer/newsletter', () => {
  it('sends the spec fields for a form subscription with email and phone: both states subscribed', async () => {
    const { store, path } = await subscribed('customer/newsletter');
    const id = uid('sub');
    const from = nowSeconds();
    await acceptedHeadless(runtime, store, 'customers/create', {
      id,
      created_at: 1_700_000_123_000,
      email: `${id}@example.com`,
      phone: '+15551234567',
      country_code: 'us',
      first_name: 'Grace',
      last_name: 'Hopper',
      email_marketing_consent: { state: 'subscribed' },
      sms_marketing_consent: { state: 'subscribed' },
    });
    const [body] = await bodies(path, 1, 'customer/newsletter');
    expect(body).toEqual({
      id,
      email: `${id}@example.com`,
      phone: '+15551234567',
      first_name: 'Grace',
      last_name: 'Hopper',
      city: '',
      gender: '',
      birthdate: '',
      country_code: 'US',
      created_at: 1_700_000_123,
      source: 'customer/newsletter',
      email_marketing_consent: { state: 'subscribed', updated_at: aboutNow(from) },
      sms_marketing_consent: { state: 'subscribed' },
    });
  });

  it('reads a channel that was not given, or not subscribed, as "undefined"', async () => {
    const { store, path } = await subscribed('customer/newsletter');
    const emailOnly = uid('sub');
    await acceptedHeadless(runtime, store, 'customers/create', {
      id: emailOnly,
      created_at: 1_700_000_000,
      email: `${emailOnly}@example.com`,
    });
    const [first] = await bodies(path, 1, 'customer/newsletter');
    expect(first).toMatchObject({
      id: emailOnly,
      phone: '',
      email_marketing_consent: { state: 'subscribed' },
      sms_marketing_consent: { state: 'undefined' },
    });

    const declined = uid('sub');
    await acceptedHeadless(runtime, store, 'customers/create', {
      id: declined,
      created_at: 1_700_000_000,
      phone: '+15557654321',
      email_marketing_consent: { state: 'not_subscribed' },
    });
    const [, second] = await bodies(path, 2, 'customer/newsletter');
    expect(second).toMatchObject({
      id: declined,
      email: '',
      phone: '+15557654321',
      email_marketing_consent: { state: 'undefined', updated_at: expect.any(Number) },
      sms_marketing_consent: { state: 'subscribed' },
    });
  });

  it('is not sent for a customer created through the general interface (not a form subscription)', async () => {
    const { store, path, webhook } = await subscribed('customer/newsletter');
    await acceptedGeneral(runtime, store, 'customers/create', {
      ...richCustomer(uid('gen')),
      email_marketing_consent: { state: 'subscribed' },
    });
    await settled(runtime);
    expect(receiver.received(path)).toEqual([]);
    expect(await deliveriesOf(runtime, store, webhook.id)).toEqual([]);
  });
});

describe('customer/marketing', () => {
  it('sends format one to a direct store when an update changes email consent from subscribed to unsubscribed', async () => {
    const { store, path } = await subscribed('customer/marketing');
    const id = uid('cust');
    const from = nowSeconds();
    await acceptedGeneral(runtime, store, 'customers/create', {
      ...richCustomer(id),
      email_marketing_consent: { state: 'subscribed', updatedAt: 1_700_000_100 },
    });
    const [created] = await bodies(path, 1, 'customer/marketing');
    expect(created).toMatchObject({
      id,
      email_marketing_consent: { state: 'SUBSCRIBED', updated_at: 1_700_000_100 },
      sms_marketing_consent: { state: 'NOT_SUBSCRIBED' },
    });

    // updatedAt in milliseconds must come out in seconds too.
    await acceptedGeneral(runtime, store, 'customers/update', {
      id,
      email_marketing_consent: { state: 'unsubscribed', updatedAt: 1_700_000_200_000 },
    });
    const [, changed] = await bodies(path, 2, 'customer/marketing');
    expect(changed).toEqual({
      id,
      email: `${id}@example.com`,
      phone: '+441234567890',
      first_name: 'Ada',
      last_name: 'Lovelace',
      city: 'London',
      gender: 'female',
      birthdate: '1815-12-10',
      country_code: 'GB',
      created_at: 1_700_000_000,
      email_marketing_consent: { state: 'UNSUBSCRIBED', updated_at: 1_700_000_200 },
      sms_marketing_consent: { state: 'NOT_SUBSCRIBED', updated_at: aboutNow(from) },
    });
  });

  it('sends NOT_SUBSCRIBED, and SUBSCRIBED for SMS, in format one', async () => {
    const { store, path } = await subscribed('customer/marketing');
    const id = uid('cust');
    await acceptedGeneral(runtime, store, 'customers/create', {
      ...richCustomer(id),
      email_marketing_consent: { state: 'unsubscribed' },
    });
    await acceptedGeneral(runtime, store, 'customers/update', {
      id,
      email_marketing_consent: { state: 'not_subscribed' },
      sms_marketing_consent: { state: 'subscribed', updatedAt: 1_700_000_300 },
    });
    const [first, second] = await bodies(path, 2, 'customer/marketing');
    expect(first).toMatchObject({ email_marketing_consent: { state: 'UNSUBSCRIBED' } });
    expect(second).toMatchObject({
      email_marketing_consent: { state: 'NOT_SUBSCRIBED' },
      sms_marketing_consent: { state: 'SUBSCRIBED', updated_at: 1_700_000_300 },
    });
  });

  it('sends format two to a platform store: camelCase, audienceId = the contact id, shopId = the store, states 1/2/0', async () => {
    const { store, path } = await subscribed('customer/marketing', 'platform');
    const id = uid('cust');
    const from = nowSeconds();
    await acceptedGeneral(runtime, store, 'customers/create', {
      ...richCustomer(id),
      email_marketing_consent: { state: 'subscribed', updatedAt: 1_700_000_100 },
    });
    const [created] = await bodies(path, 1, 'customer/marketing');
    expect(created).toMatchObject({
      originId: id,
      emailMarketingConsent: { state: 1, updatedAt: 1_700_000_100 },
      smsMarketingConsent: { state: 0 },
    });

    await acceptedGeneral(runtime, store, 'customers/update', {
      id,
      email_marketing_consent: { state: 'unsubscribed', updatedAt: 1_700_000_200 },
    });
    const [, changed] = await bodies(path, 2, 'customer/marketing');
    const contact = await customers.get(store.storeId, id);
    expect(contact?.id).toEqual(expect.any(String));
    expect(contact?.id).not.toBe(id);
    expect(changed).toEqual({
      audienceId: contact?.id,
      originId: id,
      shopId: store.storeId,
      email: `${id}@example.com`,
      phone: '+441234567890',
      firstName: 'Ada',
      lastName: 'Lovelace',
      city: 'London',
      gender: 'female',
      birthDate: '1815-12-10',
      countryCode: 'GB',
      createdAt: 1_700_000_000,
      updatedAt: aboutNow(from),
      emailMarketingConsent: { state: 2, updatedAt: 1_700_000_200 },
      smsMarketingConsent: { state: 0, updatedAt: aboutNow(from) },
    });

    await acceptedGeneral(runtime, store, 'customers/update', {
      id,
      sms_marketing_consent: { state: 'subscribed', updatedAt: 1_700_000_300 },
    });
    const [, , third] = await bodies(path, 3, 'customer/marketing');
    expect(third).toMatchObject({
      emailMarketingConsent: { state: 2, updatedAt: 1_700_000_200 },
      smsMarketingConsent: { state: 1, updatedAt: 1_700_000_300 },
    });
  });

  it('is not sent when an update does not change a consent state', async () => {
    const { store, path, webhook } = await subscribed('customer/marketing');
    const id = uid('cust');
    await acceptedGeneral(runtime, store, 'customers/create', {
      ...richCustomer(id),
      email_marketing_consent: { state: 'subscribed', updatedAt: 1_700_000_100 },
    });
    await bodies(path, 1, 'customer/marketing');

    // Other fields only; the same state again (with a newer time); an explicit "not subscribed" for an SMS channel
    // that had no consent (which reads as not subscribed already).
    await acceptedGeneral(runtime, store, 'customers/update', { id, first_name: 'Augusta' });
    await acceptedGeneral(runtime, store, 'customers/update', {
      id,
      email_marketing_consent: { state: 'subscribed', updatedAt: 1_700_000_900 },
    });
    await acceptedGeneral(runtime, store, 'customers/update', {
      id,
      sms_marketing_consent: { state: 'not_subscribed' },
    });
    await acceptedGeneral(runtime, store, 'customers', { ...richCustomer(id), first_name: 'Ada Augusta' });
    // A real change last: the same customer's events apply in order, so once it arrives the others were applied.
    await acceptedGeneral(runtime, store, 'customers/update', {
      id,
      last_name: 'King',
      email_marketing_consent: { state: 'unsubscribed' },
    });
    const [, last] = await bodies(path, 2, 'customer/marketing');
    expect(last).toMatchObject({
      first_name: 'Ada Augusta',
      last_name: 'King',
      email_marketing_consent: { state: 'UNSUBSCRIBED' },
    });
    await settled(runtime);
    expect(receiver.received(path)).toHaveLength(2);
    const deliveries = await deliveriesOf(runtime, store, webhook.id);
    expect(deliveries.map((d) => [d.topic, d.status])).toEqual([
      ['customer/marketing', 'delivered'],
      ['customer/marketing', 'delivered'],
    ]);
  });

  it('is not sent to a store without a customer/marketing subscription, and is once the store subscribes', async () => {
    const { store, path, webhook } = await subscribed('customer/newsletter');
    const id = uid('cust');
    await acceptedGeneral(runtime, store, 'customers/create', {
      ...richCustomer(id),
      email_marketing_consent: { state: 'subscribed' },
    });
    await settled(runtime);
    expect(receiver.received(path)).toEqual([]);
    expect(await deliveriesOf(runtime, store, webhook.id)).toEqual([]);

    // Control: the same change once the store subscribes customer/marketing is sent, once, and only that one (an
    // event emitted before the subscription is not sent later).
    const marketingPath = freshPath('customer-marketing');
    const marketing = await subscribe(runtime, store, 'customer/marketing', receiver.url(marketingPath));
    const later = uid('cust');
    await acceptedGeneral(runtime, store, 'customers/create', {
      ...richCustomer(later),
      email_marketing_consent: { state: 'subscribed' },
    });
    const [body] = await bodies(marketingPath, 1, 'customer/marketing');
    expect(body).toMatchObject({ id: later, email_marketing_consent: { state: 'SUBSCRIBED' } });
    await settled(runtime);
    expect(receiver.received(marketingPath)).toHaveLength(1);
    const deliveries = await deliveriesOf(runtime, store, marketing.id);
    expect(deliveries.map((d) => [d.topic, d.status])).toEqual([['customer/marketing', 'delivered']]);
    expect(receiver.received(path)).toEqual([]);
    expect(await deliveriesOf(runtime, store, webhook.id)).toEqual([]);
  });
});
