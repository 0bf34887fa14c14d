/**
 * Conformance: the headless event interface (spec "Endpoints" → "Headless event interface", rules 1–6; "Headless event
 * payloads"; "Errors"; "Events" → customer/newsletter). Over HTTP against the local runtime's front host: the five
 * endpoint values, the answers in the headless shape, and what each rule stores and starts (or does not start).
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalRuntime } from '#local/runtime.ts';
import { dynamo } from '#shared/adapters/aws-clients.ts';
import { dynamoCartRepository } from '#shared/adapters/dynamodb/commerce.repositories.ts';
import { dynamoCustomerRepository } from '#shared/adapters/dynamodb/customer.repository.ts';
import { keys } from '#shared/adapters/dynamodb/keys.ts';
import { dynamoProductRepository } from '#shared/adapters/dynamodb/product.repository.ts';
import { queryAll } from '#shared/adapters/dynamodb/query.ts';
import { tableName } from '#shared/adapters/dynamodb/table.ts';
import { TABLE_SCHEMA } from '#shared/adapters/dynamodb/table-schema.ts';
import { QueryCommand } from '#shared/adapters/dynamodb-client.ts';
import type { BackInStockSubscription } from '#shared/domain/back-in-stock/model.ts';
import type { Cart } from '#shared/domain/carts/model.ts';
import type { Customer } from '#shared/domain/customers/model.ts';
import {
  acceptedGeneral,
  acceptedHeadless,
  awaitTriggers,
  customerData,
  deliveryRecordsOf,
  drained,
  expectNoTrigger,
  headless,
  headlessCartData,
  headlessPageView,
  newStore,
  pageViewsOf,
  productData,
  sourceId,
  startRuntime,
  subscribedTo,
  type TestStore,
  timerSchedule,
  triggersOf,
  uid,
  until,
} from '#test/support/harness.ts';

let runtime: LocalRuntime;
let store: TestStore;
const customers = dynamoCustomerRepository();
const products = dynamoProductRepository();
const carts = dynamoCartRepository();

beforeAll(async () => {
  runtime = await startRuntime();
});

afterAll(async () => {
  await runtime?.stop();
});

const freshStore = async () => {
  store = await newStore('Conformance headless');
  return store;
};

const send = (endpoint: string, data: Record<string, unknown>, source_id?: string) =>
  acceptedHeadless(runtime, store, endpoint, data, source_id);

const viewsOf = (contactKey: string) => pageViewsOf(store.storeId, contactKey);

const viewsUnder = (contactKey: string, count: number) =>
  until(`${count} page view(s) under ${contactKey}`, async () => {
    const views = await viewsOf(contactKey);
    return views.length >= count ? views : undefined;
  });

const customerAt = (id: string, revision: number): Promise<Customer> =>
  until(`customer ${id} at revision ${revision}`, async () => {
    const customer = await customers.get(store.storeId, id);
    return customer && customer.revision >= revision ? customer : undefined;
  });

const cartAt = (token: string, revision: number): Promise<Cart> =>
  until(`cart ${token} at revision ${revision}`, async () => {
    const cart = await carts.get(store.storeId, token);
    return cart && cart.revision >= revision ? cart : undefined;
  });

const subscriptionsOf = (productId: string) =>
  queryAll<BackInStockSubscription>(keys.backInStockByProduct(store.storeId, productId).pk);

/** A product with an image in the service's product data (through the general interface, the only way in). */
const knownProduct = async (id = uid('prod')) => {
  await acceptedGeneral(runtime, store, 'products/create', productData(id));
  await until(`product ${id}`, async () => products.get(store.storeId, id));
  return id;
};

/** A product page view by a logged-in customer: every condition of rule 3 holds unless `extra` breaks one. */
const productView = (productId: string, extra: Record<string, unknown> = {}) =>
  headlessPageView({
    customerId: 'cust-1',
    page: { url: `https://shop.example/products/${productId}`, title: 'Desk lamp', productId },
    ...extra,
  });

describe('headless endpoint values: each is accepted with {success: true} and applied', () => {
  it('page/viewed records the view', async () => {
    await freshStore();
    const src = await send(
      'page/viewed',
      headlessPageView({
        customerId: 'cust-1',
        includeProduct: 0,
        page: { url: 'https://shop.example/', title: 'Home' },
      }),
    );
    const [view] = await viewsUnder('customer:cust-1', 1);
    expect(view).toMatchObject({ sourceId: src, url: 'https://shop.example/', title: 'Home', interface: 'headless' });
  });

  it('carts/create records the cart with its lines', async () => {
    await freshStore();
    const token = uid('cart');
    await send('carts/create', headlessCartData(token, { email: 'Buyer@Example.com' }));
    const cart = await cartAt(token, 1);
    expect(cart).toMatchObject({
      token,
      email: 'buyer@example.com',
      checkoutUrl: `https://shop.example/cart/${token}`,
      lineItems: headlessCartData(token).line_items,
    });
  });

  it('carts/update records the new lines', async () => {
    await freshStore();
    const token = uid('cart');
    await send('carts/update', headlessCartData(token));
    expect((await cartAt(token, 1)).lineItems).toEqual(headlessCartData(token).line_items);
  });

  it('customers/create records the contact', async () => {
    await freshStore();
    const id = uid('sub');
    await send('customers/create', { id, created_at: 1_700_000_000, email: `${id}@example.com` });
    expect(await customerAt(id, 1)).toMatchObject({
      originId: id,
      email: `${id}@example.com`,
      createdAt: 1_700_000_000,
    });
  });

  it('products/back_in_stock records the subscription', async () => {
    await freshStore();
    const productId = uid('prod');
    await send('products/back_in_stock', { product_id: productId, email: 'w@example.com' });
    const found = await until('the subscription', async () => {
      const list = await subscriptionsOf(productId);
      return list.length > 0 ? list : undefined;
    });
    expect(found).toEqual([expect.objectContaining({ productId, variantId: '', email: 'w@example.com' })]);
  });
});

describe('rule 1 and errors: answers in the headless shape', () => {
  it('rule 1: a source_id already seen answers {success: false, code: 304, message} and is not processed again', async () => {
    await freshStore();
    const newsletter = await subscribedTo(store.storeId, 'customer/newsletter');
    const id = uid('sub');
    const src = await send('customers/create', { id, created_at: 1_700_000_000, email: `${id}@example.com` });
    await customerAt(id, 1);
    await awaitTriggers(store.storeId, 1, 'subscription_welcome');

    const again = await headless(runtime, store.apiKey, {
      endpoint: 'customers/create',
      source_id: src,
      data: { id, created_at: 1_700_000_000, email: `${id}@example.com`, first_name: 'Changed' },
    });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ success: false, code: 304, message: 'SourceId already exist' });
    await drained(runtime);
    const customer = await customers.get(store.storeId, id);
    expect(customer?.revision).toBe(1);
    expect(customer?.firstName).toBeUndefined();
    expect(await triggersOf(store.storeId)).toHaveLength(1);
    const deliveries = await deliveryRecordsOf(newsletter);
    expect(deliveries.map((d) => [d.topic, d.body.id])).toEqual([['customer/newsletter', id]]);
  });

  it('a duplicate is recognised across endpoints: the source_id, not the payload, is the key', async () => {
    await freshStore();
    const src = sourceId();
    await send(
      'page/viewed',
      headlessPageView({
        customerId: undefined,
        includeProduct: 0,
        page: { url: 'https://shop.example/', title: 'Home' },
      }),
      src,
    );
    const again = await headless(runtime, store.apiKey, {
      endpoint: 'products/back_in_stock',
      source_id: src,
      data: { product_id: 'p-1', email: 'w@example.com' },
    });
    expect(again.body).toEqual({ success: false, code: 304, message: 'SourceId already exist' });
    await drained(runtime);
    expect(await subscriptionsOf('p-1')).toEqual([]);
  });

  it('answers 401 {success: false, code: 401, message} without a key or with an unknown key', async () => {
    await freshStore();
    const event = { endpoint: 'page/viewed', source_id: sourceId(), data: headlessPageView() };
    for (const key of [undefined, `shop_${'x'.repeat(40)}`, 'not-a-key']) {
      const answer = await headless(runtime, key, event);
      expect(answer.status).toBe(401);
      expect(answer.body).toEqual({ success: false, code: 401, message: expect.any(String) });
    }
    // Nothing was recorded: the same request with the store's key is accepted.
    await send('page/viewed', event.data, event.source_id);
  });

  it('answers 412 {success: false, code: 412, message} naming the field that fails', async () => {
    await freshStore();
    const answer = await headless(runtime, store.apiKey, {
      endpoint: 'page/viewed',
      source_id: sourceId(),
      data: headlessPageView({ type: 'product' }),
    });
    expect(answer.status).toBe(412);
    expect(answer.body).toEqual({ success: false, code: 412, message: 'data.type must be "page"' });
  });

  it.each([
    ['tag_value: 5', { tag_value: 5 }, 'data.tag_value must be a string'],
    ['tags: {}', { tags: {} }, 'data.tags must be an array of strings'],
    ['gender: []', { gender: [] }, 'data.gender must be a string'],
    ['tags: "vip"', { tags: 'vip' }, 'data.tags must be an array of strings'],
  ])(
    'answers 412 {success: false, code: 412, message} to customers/create with %s, naming the field; nothing is recorded',
    async (_, extra, message) => {
      await freshStore();
      const id = uid('sub');
      const src = sourceId();
      const data = { id, created_at: 1_700_000_000, email: `${id}@example.com` };
      const answer = await headless(runtime, store.apiKey, {
        endpoint: 'customers/create',
        source_id: src,
        data: { ...data, ...extra },
      });
      expect(answer.status).toBe(412);
      expect(answer.body).toEqual({ success: false, code: 412, message });
      // The source_id was not taken: the corrected event is accepted under it and applies.
      await send('customers/create', data, src);
      expect((await customerAt(id, 1)).platformTags).toEqual([]);
    },
  );

  it('answers 412 for an endpoint value of the general interface only', async () => {
    await freshStore();
    const answer = await headless(runtime, store.apiKey, {
      endpoint: 'orders/paid',
      source_id: sourceId(),
      data: { id: 'o-1' },
    });
    expect(answer.status).toBe(412);
    expect(answer.body).toMatchObject({ success: false, code: 412 });
    expect(String(answer.body.message)).toMatch(/^endpoint must be one of: /);
  });
});

describe('Errors and Limits: 429 over 40 requests per second', () => {
  it('answers 429 {success: false, code: 429, message} with retry-after beyond 40 events per second', async () => {
    await freshStore();
    // 100 at once: whichever one-second windows they fall in, at most 2 x 40 can be accepted.
    const answers = await Promise.all(
      Array.from({ length: 100 }, () =>
        headless(runtime, store.apiKey, {
          endpoint: 'page/viewed',
          source_id: sourceId('burst'),
          data: headlessPageView({
            customerId: undefined,
            includeProduct: 0,
            page: { url: 'https://shop.example/', title: 'Home' },
          }),
        }),
      ),
    );
    const accepted = answers.filter((a) => a.status === 200);
    const limited = answers.filter((a) => a.status === 429);
    expect(accepted.length + limited.length).toBe(100);
    expect(accepted.length).toBeGreaterThanOrEqual(40);
    expect(accepted.length).toBeLessThanOrEqual(80);
    for (const answer of accepted) expect(answer.body).toEqual({ success: true });
    for (const answer of limited) {
      expect(answer.body).toEqual({ success: false, code: 429, message: 'Too many requests' });
      expect(answer.headers.get('retry-after')).toBe('1');
    }
    // Only the accepted ones were recorded and applied.
    await drained(runtime);
    expect(await viewsOf('guest')).toHaveLength(accepted.length);
  });
});

describe('rule 2: a guest or non-product page view is only recorded', () => {
  it('rule 2: a guest product view (no customerId) is recorded under guest and starts no flow', async () => {
    await freshStore();
    const productId = await knownProduct();
    const src = await send('page/viewed', productView(productId, { customerId: undefined }));
    const views = await viewsUnder('guest', 1);
    expect(views).toEqual([expect.objectContaining({ sourceId: src, productId })]);
    await expectNoTrigger(runtime, store.storeId);
  });

  it('rule 2: a non-product view (includeProduct 0) of a logged-in customer is recorded and starts no flow', async () => {
    await freshStore();
    const productId = await knownProduct();
    const src = await send('page/viewed', productView(productId, { includeProduct: 0 }));
    const [view] = await viewsUnder('customer:cust-1', 1);
    expect(view).toMatchObject({ sourceId: src, url: `https://shop.example/products/${productId}` });
    expect(view?.productId).toBeUndefined();
    await expectNoTrigger(runtime, store.storeId);
  });
});

describe('rule 3: browse recovery starts only when every condition holds', () => {
  it('rule 3: customerId, includeProduct 1, a known product with an image and a requestId start browse_recovery', async () => {
    await freshStore();
    const productId = await knownProduct();
    await acceptedGeneral(runtime, store, 'customers/create', customerData('cust-1', { ignore_flow: 'Y' }));
    await customerAt('cust-1', 1);
    const view = productView(productId, { requestId: 'req-abc' });
    const src = await send('page/viewed', view);
    const [trigger] = await awaitTriggers(store.storeId, 1, 'browse_recovery');
    expect(trigger).toMatchObject({
      subject: { type: 'product', id: productId },
      contact: { customerId: 'cust-1', email: 'cust-1@example.com' },
      cause: { endpoint: 'page/viewed', sourceId: src },
      context: {
        product: {
          id: productId,
          title: 'Desk lamp',
          src: 'https://shop.example/lamp.jpg',
          purchaseUrl: `https://shop.example/products/${productId}`,
        },
        page: { url: `https://shop.example/products/${productId}`, title: 'Desk lamp' },
        requestId: 'req-abc',
      },
    });
    expect(await viewsOf('customer:cust-1')).toHaveLength(1);
    await drained(runtime);
    expect(await triggersOf(store.storeId)).toHaveLength(1);
  });

  it('rule 3: no customerId → no browse recovery', async () => {
    await freshStore();
    const productId = await knownProduct();
    await send('page/viewed', productView(productId, { customerId: undefined }));
    await viewsUnder('guest', 1);
    await expectNoTrigger(runtime, store.storeId);
  });

  it('rule 3: includeProduct 0 → no browse recovery, even with a known product id on the page', async () => {
    await freshStore();
    const productId = await knownProduct();
    await send('page/viewed', productView(productId, { includeProduct: 0 }));
    await viewsUnder('customer:cust-1', 1);
    await expectNoTrigger(runtime, store.storeId);
  });

  it('rule 3: a product id unknown to the service → no browse recovery', async () => {
    await freshStore();
    await knownProduct('p-known');
    await send('page/viewed', productView('p-unknown'));
    const [view] = await viewsUnder('customer:cust-1', 1);
    expect(view?.productId).toBe('p-unknown');
    await expectNoTrigger(runtime, store.storeId);
  });

  it('rule 3: an empty requestId → no browse recovery', async () => {
    await freshStore();
    const productId = await knownProduct();
    await send('page/viewed', productView(productId, { requestId: '' }));
    await viewsUnder('customer:cust-1', 1);
    await expectNoTrigger(runtime, store.storeId);
  });

  it('rule 3: a product known in another store only → no browse recovery', async () => {
    await freshStore();
    const productId = await knownProduct();
    const other = store;
    await freshStore();
    await send('page/viewed', productView(productId));
    await viewsUnder('customer:cust-1', 1);
    await expectNoTrigger(runtime, store.storeId);
    await expectNoTrigger(runtime, other.storeId);
  });
});

describe('rule 4: carts/create and carts/update', () => {
  it('rule 4: carts/create with customer_id links the cart to the customer, with no immediate flow', async () => {
    await freshStore();
    const token = uid('cart');
    await send('carts/create', headlessCartData(token, { customer_id: 'cust-7' }));
    const cart = await cartAt(token, 1);
    expect(cart.customerId).toBe('cust-7');
    expect(await timerSchedule('cart', store.storeId, token)).toBeDefined();
    await expectNoTrigger(runtime, store.storeId);
  });

  it('rule 4: carts/create needs no customer: a guest cart is recorded too', async () => {
    await freshStore();
    const token = uid('cart');
    await send('carts/create', headlessCartData(token));
    const cart = await cartAt(token, 1);
    expect(cart.customerId).toBeUndefined();
    expect(cart.lineItems).toHaveLength(1);
  });

  it('rule 4: carts/update replaces the lines in full, and an empty array empties the cart', async () => {
    await freshStore();
    const token = uid('cart');
    const line = (productId: string) => ({ title: productId, quantity: 1, price: '5.00', product_id: productId });
    await send('carts/create', headlessCartData(token, { line_items: [line('a'), line('b')], customer_id: 'cust-7' }));
    expect((await cartAt(token, 1)).lineItems).toHaveLength(2);
    await send('carts/update', headlessCartData(token, { line_items: [line('c')] }));
    const updated = await cartAt(token, 2);
    expect(updated.lineItems).toEqual([line('c')]);
    expect(updated.customerId).toBe('cust-7');
    await send('carts/update', headlessCartData(token, { line_items: [] }));
    expect((await cartAt(token, 3)).lineItems).toEqual([]);
    await expectNoTrigger(runtime, store.storeId);
  });
});

describe('rule 5: customers/create collects a subscription and starts the subscription welcome flow', () => {
  it('rule 5: creates the contact, starts subscription_welcome and emits customer/newsletter with the spec body', async () => {
    await freshStore();
    const newsletter = await subscribedTo(store.storeId, 'customer/newsletter');
    const id = uid('sub');
    const src = await send('customers/create', {
      id,
      created_at: 1_700_000_000_000,
      email: `${id}@example.com`,
      phone: '+33600000002',
      first_name: 'Ada',
      last_name: 'Lovelace',
      country_code: 'gb',
    });
    const customer = await customerAt(id, 1);
    expect(customer).toMatchObject({
      originId: id,
      email: `${id}@example.com`,
      phone: '+33600000002',
      countryCode: 'GB',
      createdAt: 1_700_000_000,
      emailConsent: { state: 'subscribed' },
      smsConsent: { state: 'subscribed' },
    });

    const [trigger] = await awaitTriggers(store.storeId, 1, 'subscription_welcome');
    expect(trigger).toMatchObject({
      subject: { type: 'customer', id },
      contact: { email: `${id}@example.com`, phone: '+33600000002', customerId: id },
      cause: { endpoint: 'customers/create', sourceId: src },
    });

    const [event] = await until('the customer/newsletter delivery', async () => {
      const events = await deliveryRecordsOf(newsletter);
      return events.length > 0 ? events : undefined;
    });
    expect(event?.topic).toBe('customer/newsletter');
    const body = event?.body ?? {};
    expect(Object.keys(body).sort()).toEqual(
      [
        'id',
        'email',
        'phone',
        'first_name',
        'last_name',
        'city',
        'gender',
        'birthdate',
        'country_code',
        'created_at',
        'source',
        'email_marketing_consent',
        'sms_marketing_consent',
      ].sort(),
    );
    expect(body).toEqual({
      id,
      email: `${id}@example.com`,
      phone: '+33600000002',
      first_name: 'Ada',
      last_name: 'Lovelace',
      city: '',
      gender: '',
      birthdate: '',
      country_code: 'GB',
      created_at: 1_700_000_000,
      source: 'customer/newsletter',
      email_marketing_consent: { state: 'subscribed', updated_at: expect.any(Number) },
      sms_marketing_consent: { state: 'subscribed' },
    });
    // The site's id, not the service's own contact id.
    expect(body.id).not.toBe(customer.id);
    await drained(runtime);
    expect((await triggersOf(store.storeId)).map((t) => t.kind)).toEqual(['subscription_welcome']);
    expect(await deliveryRecordsOf(newsletter)).toHaveLength(1);
  });

  it('rule 5: consent states other than subscribed are sent as "undefined" in customer/newsletter', async () => {
    await freshStore();
    const newsletter = await subscribedTo(store.storeId, 'customer/newsletter');
    const id = uid('sub');
    await send('customers/create', {
      id,
      created_at: 1_700_000_000,
      email: `${id}@example.com`,
      email_marketing_consent: { state: 'not_subscribed' },
    });
    const [event] = await until('the customer/newsletter delivery', async () => {
      const events = await deliveryRecordsOf(newsletter);
      return events.length > 0 ? events : undefined;
    });
    expect(event?.body).toMatchObject({
      phone: '',
      email_marketing_consent: { state: 'undefined' },
      sms_marketing_consent: { state: 'undefined' },
    });
    expect((await customers.get(store.storeId, id))?.emailConsent?.state).toBe('not_subscribed');
  });

  it('rule 5: a second customers/create with the same id updates the contact instead of creating another', async () => {
    await freshStore();
    const id = uid('sub');
    await send('customers/create', { id, created_at: 1_700_000_000, email: `${id}@example.com` });
    const first = await customerAt(id, 1);
    await send('customers/create', { id, created_at: 1_700_000_000, phone: '+33600000003', first_name: 'Grace' });
    const second = await customerAt(id, 2);
    expect(second).toMatchObject({
      id: first.id,
      originId: id,
      email: `${id}@example.com`,
      phone: '+33600000003',
      firstName: 'Grace',
      revision: 2,
    });
    // One contact: the export index holds it once.
    const page = await dynamo().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: TABLE_SCHEMA.globalSecondaryIndexes[0].indexName,
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.customerByCreation(store.storeId, 0, '').gsi1pk },
      }),
    );
    const byCreation = page.Items ?? [];
    expect(byCreation).toHaveLength(1);
  });

  it('rule 5: customers/create with a phone only is a subscription too', async () => {
    await freshStore();
    const id = uid('sub');
    await send('customers/create', { id, created_at: 1_700_000_000, phone: '+33600000004' });
    const customer = await customerAt(id, 1);
    expect(customer).toMatchObject({ phone: '+33600000004', smsConsent: { state: 'subscribed' } });
    expect(customer.email).toBeUndefined();
    const [trigger] = await awaitTriggers(store.storeId, 1, 'subscription_welcome');
    expect(trigger?.contact).toEqual({ phone: '+33600000004', customerId: id });
  });
});

describe('rule 6: products/back_in_stock records a restock subscription and starts no flow', () => {
  it('rule 6: one subscription per product_variants entry, no flow', async () => {
    await freshStore();
    const productId = uid('prod');
    await send('products/back_in_stock', {
      product_id: productId,
      product_variants: ['v-1', 'v-2'],
      email: 'w@example.com',
      first_name: 'Ada',
      product_name: 'Desk lamp',
      product_variant_name: 'Black / M',
      product_url: 'https://shop.example/products/lamp',
    });
    const found = await until('two subscriptions', async () => {
      const list = await subscriptionsOf(productId);
      return list.length >= 2 ? list : undefined;
    });
    expect(found.map((s) => s.variantId).sort()).toEqual(['v-1', 'v-2']);
    for (const subscription of found) {
      expect(subscription).toMatchObject({
        email: 'w@example.com',
        details: { first_name: 'Ada', product_name: 'Desk lamp', product_variant_name: 'Black / M' },
      });
    }
    await expectNoTrigger(runtime, store.storeId);
  });

  it('rule 6: without product_variants the empty variant is used; a phone alone is enough', async () => {
    await freshStore();
    const productId = uid('prod');
    await send('products/back_in_stock', { product_id: productId, phone: '+33600000005' });
    const [subscription] = await until('the subscription', async () => {
      const list = await subscriptionsOf(productId);
      return list.length > 0 ? list : undefined;
    });
    expect(subscription).toMatchObject({ productId, variantId: '', phone: '+33600000005' });
    expect(subscription?.email).toBeUndefined();
    await expectNoTrigger(runtime, store.storeId);
  });

  it('rule 6: without email and phone, or without product_id, it is refused with 412 and nothing is recorded', async () => {
    await freshStore();
    const productId = uid('prod');
    const src = sourceId();
    const noContact = await headless(runtime, store.apiKey, {
      endpoint: 'products/back_in_stock',
      source_id: src,
      data: { product_id: productId, first_name: 'Ada' },
    });
    expect(noContact.status).toBe(412);
    expect(noContact.body).toEqual({ success: false, code: 412, message: 'data.email is required (or data.phone)' });

    const noProduct = await headless(runtime, store.apiKey, {
      endpoint: 'products/back_in_stock',
      source_id: src,
      data: { email: 'w@example.com' },
    });
    expect(noProduct.status).toBe(412);
    expect(noProduct.body).toEqual({ success: false, code: 412, message: 'data.product_id is required' });
    await drained(runtime);
    expect(await subscriptionsOf(productId)).toEqual([]);
    // The same source_id with a valid payload is accepted: the refusals left no record.
    await send('products/back_in_stock', { product_id: productId, email: 'w@example.com' }, src);
  });

  it('rule 6: the subscription is notified by a later restock (general products/restock)', async () => {
    await freshStore();
    const productId = uid('prod');
    await send('products/back_in_stock', { product_id: productId, product_variants: ['v-1'], email: 'w@example.com' });
    await until('the subscription', async () => ((await subscriptionsOf(productId)).length > 0 ? true : undefined));
    await acceptedGeneral(runtime, store, 'products/restock', { product_id: productId, variant_id: 'v-1' });
    const [trigger] = await awaitTriggers(store.storeId, 1, 'back_in_stock');
    expect(trigger).toMatchObject({ contact: { email: 'w@example.com' }, context: { productId, variantId: 'v-1' } });
  });
});
