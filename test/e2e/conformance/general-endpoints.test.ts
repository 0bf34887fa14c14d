/**
 * Conformance: the general event interface (spec "Endpoints" → "General event interface", rules 1–6 and the table
 * "Which endpoints start flows"; "States and transitions"). Over HTTP against the local runtime: each of the 21
 * endpoint values is accepted, its effect is stored, and exactly the flow of its table row is recorded, or none.
 *
 * This file never moves the timers' clock: cart timers (1 h) and checkout timers (30 min) stay pending throughout, so
 * "no immediate trigger" is meaningful. What the timers do later is covered by `timers.test.ts`.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalRuntime } from '#local/runtime.ts';
import {
  dynamoCartRepository,
  dynamoCheckoutRepository,
  dynamoOrderRepository,
} from '#shared/adapters/dynamodb/commerce.repositories.ts';
import { dynamoCustomerRepository } from '#shared/adapters/dynamodb/customer.repository.ts';
import { keys } from '#shared/adapters/dynamodb/keys.ts';
import { dynamoProductRepository } from '#shared/adapters/dynamodb/product.repository.ts';
import { queryAll } from '#shared/adapters/dynamodb/query.ts';
import type { BackInStockSubscription } from '#shared/domain/back-in-stock/model.ts';
import { isOpen } from '#shared/domain/carts/model.ts';
import {
  acceptedGeneral,
  atMs,
  awaitTriggers,
  cartData,
  cartLine,
  checkoutData,
  customerData,
  drained,
  expectNoTrigger,
  general,
  newStore,
  orderData,
  orderLine,
  pageViewsOf,
  productData,
  sourceId,
  startRuntime,
  type TestStore,
  timerSchedule,
  trackedLine,
  triggersOf,
  uid,
  until,
} from '#test/support/harness.ts';

let runtime: LocalRuntime;
let store: TestStore;
const customers = dynamoCustomerRepository();
const products = dynamoProductRepository();
const orders = dynamoOrderRepository();
const carts = dynamoCartRepository();
const checkouts = dynamoCheckoutRepository();

beforeAll(async () => {
  runtime = await startRuntime();
});

afterAll(async () => {
  await runtime?.stop();
});

// A fresh store per test: no test sees another's data, triggers or rate-limit window.
const freshStore = async () => {
  store = await newStore('Conformance general');
  return store;
};

const send = (endpoint: string, data: Record<string, unknown>, source_id?: string) =>
  acceptedGeneral(runtime, store, endpoint, data, source_id);

const customerWhere = (id: string, test: (c: NonNullable<Awaited<ReturnType<typeof customers.get>>>) => boolean) =>
  until(`customer ${id}`, async () => {
    const customer = await customers.get(store.storeId, id);
    return customer && test(customer) ? customer : undefined;
  });

const orderWhere = (id: string, test: (o: NonNullable<Awaited<ReturnType<typeof orders.get>>>) => boolean) =>
  until(`order ${id}`, async () => {
    const order = await orders.get(store.storeId, id);
    return order && test(order) ? order : undefined;
  });

const productAt = (id: string, revision: number) =>
  until(`product ${id} at revision ${revision}`, async () => {
    const product = await products.get(store.storeId, id);
    return product && product.revision >= revision ? product : undefined;
  });

const cartAt = (token: string, revision: number) =>
  until(`cart ${token} at revision ${revision}`, async () => {
    const cart = await carts.get(store.storeId, token);
    return cart && cart.revision >= revision ? cart : undefined;
  });

const checkoutAt = (token: string, revision: number) =>
  until(`checkout ${token} at revision ${revision}`, async () => {
    const checkout = await checkouts.get(store.storeId, token);
    return checkout && checkout.revision >= revision ? checkout : undefined;
  });

const subscriptionsOf = (productId: string) =>
  queryAll<BackInStockSubscription>(keys.backInStockByProduct(store.storeId, productId).pk);

const subscriptionCount = (productId: string, count: number) =>
  until(`${count} back-in-stock subscription(s) to ${productId}`, async () => {
    const found = await subscriptionsOf(productId);
    return found.length === count ? found : undefined;
  });

/** Asserts the store's recorded triggers, once every event sent so far was applied, by kind (order-insensitive). */
const expectTriggerKinds = async (kinds: string[]) => {
  await drained(runtime);
  const found = (await triggersOf(store.storeId)).map((t) => t.kind).sort();
  expect(found).toEqual([...kinds].sort());
};

describe('answers of the general interface ("Errors")', () => {
  it('answers 200 {code: 200, message: ok} and a repeated source_id with HTTP 200 {code: 304}, not applied again', async () => {
    await freshStore();
    const id = uid('cust');
    const src = await send('customers/create', customerData(id));
    await customerWhere(id, () => true);
    const again = await general(runtime, store.apiKey, {
      endpoint: 'customers/create',
      source_id: src,
      data: customerData(id, { first_name: 'Changed' }),
    });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ code: 304, message: 'SourceId already exist' });
    await drained(runtime);
    expect(await customers.get(store.storeId, id)).toMatchObject({ firstName: 'Ada', revision: 1 });
    await expectTriggerKinds(['customer_created']);
  });

  it('answers 401 {code: 401, message} without a valid X-Service-Access-Token and applies nothing', async () => {
    await freshStore();
    const id = uid('cust');
    const src = sourceId();
    for (const key of [undefined, '', `shop_${'x'.repeat(40)}`]) {
      const answer = await general(runtime, key, {
        endpoint: 'customers/create',
        source_id: src,
        data: customerData(id),
      });
      expect(answer.status).toBe(401);
      expect(answer.body).toEqual({ code: 401, message: expect.any(String) });
    }
    await send('customers/create', customerData(id), src);
    await customerWhere(id, () => true);
  });
});

describe('validation choices of docs/events.md', () => {
  it('null means absent: customers/update with null fields keeps the stored values', async () => {
    await freshStore();
    const id = uid('cust');
    await send('customers/create', customerData(id, { last_name: 'Lovelace', phone: '+441234' }));
    await customerWhere(id, () => true);
    await send('customers/update', { id, first_name: 'Augusta', last_name: null, phone: null, email: null });
    const customer = await customerWhere(id, (c) => c.firstName === 'Augusta');
    expect(customer).toMatchObject({ lastName: 'Lovelace', phone: '+441234', email: `${id}@example.com` });
  });

  it('ids and amounts sent as JSON numbers are stored as strings', async () => {
    await freshStore();
    await send('products/create', productData('1', { id: 4242, variants: [{ id: 77, price: 19.9 }] }));
    const product = await productAt('4242', 1);
    expect(product.variants[0]).toMatchObject({ id: '77', price: '19.9' });
    await send('orders/create', orderData('1', { id: 9001, customer_id: 12, total_price: 19.9 }));
    expect(await orderWhere('9001', () => true)).toMatchObject({ customerId: '12', details: { total_price: '19.9' } });
  });

  it('tag_value and tags replace the stored category tags and platform tags', async () => {
    await freshStore();
    const id = uid('cust');
    await send(
      'customers/create',
      customerData(id, { tag_value: 'level:gold,region:eu', tags: ['vip', 'newsletter'] }),
    );
    await customerWhere(id, () => true);
    await send('customers/update', { id, tag_value: 'level:silver', tags: ['vip'] });
    const customer = await customerWhere(id, (c) => c.revision === 2);
    expect(customer.categoryTags).toEqual([{ category: 'level', value: 'silver' }]);
    expect(customer.platformTags).toEqual(['vip']);
  });

  it('accepts a source_id of 50 emoji (docs: characters are code points) and emoji in the payload', async () => {
    await freshStore();
    const id = uid('emoji');
    const answer = await general(runtime, store.apiKey, {
      endpoint: 'customers/create',
      source_id: '😀'.repeat(50),
      data: customerData(id, { first_name: 'Zoë 🌸' }),
    });
    expect(answer.body).toEqual({ code: 200, message: 'ok' });
    expect((await until('the customer', async () => customers.get(store.storeId, id))).firstName).toBe('Zoë 🌸');
    const tooLong = await general(runtime, store.apiKey, {
      endpoint: 'customers/create',
      source_id: '😀'.repeat(51),
      data: customerData(id),
    });
    expect(tooLong.body).toEqual({ code: 412, message: 'source_id must be at most 50 characters' });
  });

  it('unknown extra fields are kept, not rejected', async () => {
    await freshStore();
    const id = uid('cust');
    await send('customers/create', customerData(id, { loyalty_tier: 'gold' }));
    expect((await customerWhere(id, () => true)).attributes).toEqual({ loyalty_tier: 'gold' });
  });
});

describe('rule 5, customers: customers/create, customers/update, customers', () => {
  it('customers/create stores the customer and starts the "customer created" flow', async () => {
    await freshStore();
    const id = uid('cust');
    const src = await send('customers/create', customerData(id, { ignore_flow: 'N', tag_value: 'level:gold' }));
    const customer = await customerWhere(id, () => true);
    expect(customer).toMatchObject({
      originId: id,
      email: `${id}@example.com`,
      firstName: 'Ada',
      createdAt: 1_700_000_000,
      categoryTags: [{ category: 'level', value: 'gold' }],
    });
    const [trigger] = await awaitTriggers(store.storeId, 1);
    expect(trigger).toMatchObject({
      kind: 'customer_created',
      subject: { type: 'customer', id },
      contact: { email: `${id}@example.com`, customerId: id },
      cause: { endpoint: 'customers/create', sourceId: src },
      context: { customer: { originId: id, email: `${id}@example.com`, firstName: 'Ada' } },
    });
    await expectTriggerKinds(['customer_created']);
  });

  it('customers/update changes only the fields passed and starts no flow', async () => {
    await freshStore();
    const id = uid('cust');
    await send('customers/create', customerData(id, { last_name: 'Lovelace', city: 'London' }));
    await awaitTriggers(store.storeId, 1, 'customer_created');
    await send('customers/update', { id, first_name: 'Augusta' });
    const customer = await customerWhere(id, (c) => c.firstName === 'Augusta');
    expect(customer).toMatchObject({ lastName: 'Lovelace', city: 'London', email: `${id}@example.com`, revision: 2 });
    await expectTriggerKinds(['customer_created']);
  });

  it('customers/update of an unknown id creates the customer from the fields passed (docs/events.md), no flow', async () => {
    await freshStore();
    const id = uid('cust');
    await send('customers/update', { id, email: `${id}@example.com` });
    const customer = await customerWhere(id, () => true);
    expect(customer).toMatchObject({ originId: id, email: `${id}@example.com`, revision: 1 });
    await expectNoTrigger(runtime, store.storeId);
  });

  it('customers starts "customer created" when it creates, and no flow when it updates the same id', async () => {
    await freshStore();
    const id = uid('cust');
    const created = await send('customers', customerData(id));
    await customerWhere(id, () => true);
    const [trigger] = await awaitTriggers(store.storeId, 1, 'customer_created');
    expect(trigger?.cause).toEqual({ endpoint: 'customers', sourceId: created });

    await send('customers', customerData(id, { first_name: 'Grace' }));
    const customer = await customerWhere(id, (c) => c.firstName === 'Grace');
    expect(customer.revision).toBe(2);
    await expectTriggerKinds(['customer_created']);
  });

  it('customers/create of an id that exists updates it, without a second "customer created"', async () => {
    await freshStore();
    const id = uid('cust');
    await send('customers/create', customerData(id));
    await awaitTriggers(store.storeId, 1, 'customer_created');
    await send('customers/create', customerData(id, { first_name: 'Grace' }));
    const customer = await customerWhere(id, (c) => c.firstName === 'Grace');
    expect(customer.revision).toBe(2);
    await expectTriggerKinds(['customer_created']);
  });
});

describe('rule 5, orders: orders/create, orders/paid, orders/fulfilled, orders/update, orders/cancelled, orders/refunded', () => {
  it('orders/create stores the order and starts no flow', async () => {
    await freshStore();
    const id = uid('order');
    await send('orders/create', orderData(id, { order_status: 'pending' }));
    const order = await orderWhere(id, () => true);
    expect(order).toMatchObject({
      id,
      status: 'pending',
      customerId: 'cust-1',
      email: 'buyer@example.com',
      details: { name: `#${id}`, total_price: '19.90', currency: 'USD', line_items: [orderLine()] },
    });
    expect(order.statusHistory.map((s) => s.status)).toEqual(['pending']);
    await expectNoTrigger(runtime, store.storeId);
  });

  it('orders/create with a paid status still starts no flow ("stored only")', async () => {
    await freshStore();
    const id = uid('order');
    await send('orders/create', orderData(id, { order_status: 'paid' }));
    expect((await orderWhere(id, () => true)).status).toBe('paid');
    await expectNoTrigger(runtime, store.storeId);
  });

  it('orders/paid stores the paid order and starts the "order paid" flow', async () => {
    await freshStore();
    const id = uid('order');
    const src = await send('orders/paid', orderData(id, { order_status: 'paid' }));
    expect((await orderWhere(id, () => true)).status).toBe('paid');
    const [trigger] = await awaitTriggers(store.storeId, 1);
    expect(trigger).toMatchObject({
      kind: 'order_paid',
      subject: { type: 'order', id },
      contact: { email: 'buyer@example.com', customerId: 'cust-1' },
      cause: { endpoint: 'orders/paid', sourceId: src },
      context: { order: { id, status: 'paid', total_price: '19.90' } },
    });
    await expectTriggerKinds(['order_paid']);
  });

  it('orders/fulfilled with tracking company, number and url on every line starts the "order fulfilled" flow', async () => {
    await freshStore();
    const id = uid('order');
    await send(
      'orders/fulfilled',
      orderData(id, { order_status: 'fulfilled', fulfillment_status: 'fulfilled', line_items: [trackedLine()] }),
    );
    const order = await orderWhere(id, () => true);
    expect(order).toMatchObject({ status: 'fulfilled', details: { fulfillment_status: 'fulfilled' } });
    expect(order.details.line_items).toEqual([trackedLine()]);
    const [trigger] = await awaitTriggers(store.storeId, 1);
    expect(trigger).toMatchObject({ kind: 'order_fulfilled', subject: { type: 'order', id } });
    await expectTriggerKinds(['order_fulfilled']);
  });

  it('orders/fulfilled without the tracking fields in a line is refused with 412 naming each field', async () => {
    await freshStore();
    const id = uid('order');
    const src = sourceId();
    const untracked = await general(runtime, store.apiKey, {
      endpoint: 'orders/fulfilled',
      source_id: src,
      data: orderData(id, { order_status: 'fulfilled', line_items: [trackedLine(), orderLine()] }),
    });
    expect(untracked.status).toBe(412);
    expect(untracked.body.code).toBe(412);
    const message = String(untracked.body.message);
    expect(message).toContain('data.line_items[1].tracking_company is required');
    expect(message).toContain('data.line_items[1].tracking_number is required');
    expect(message).toContain('data.line_items[1].tracking_url is required');
    expect(message).not.toContain('line_items[0]');

    const blank = await general(runtime, store.apiKey, {
      endpoint: 'orders/fulfilled',
      source_id: src,
      data: orderData(id, { order_status: 'fulfilled', line_items: [trackedLine({ tracking_company: ' ' })] }),
    });
    expect(blank.status).toBe(412);
    expect(blank.body.message).toBe('data.line_items[0].tracking_company must not be empty');
    // Neither refusal left a record: the same source_id with a valid payload is accepted.
    await send('orders/fulfilled', orderData(id, { order_status: 'fulfilled', line_items: [trackedLine()] }), src);
    await awaitTriggers(store.storeId, 1, 'order_fulfilled');
  });

  it('orders/update starts "order status changed" only when the status changed', async () => {
    await freshStore();
    const id = uid('order');
    await send('orders/create', orderData(id, { order_status: 'pending' }));
    await orderWhere(id, () => true);

    const changed = await send('orders/update', { id, order_status: 'fulfilled' });
    await orderWhere(id, (o) => o.status === 'fulfilled');
    const [trigger] = await awaitTriggers(store.storeId, 1);
    expect(trigger).toMatchObject({
      kind: 'order_status_changed',
      subject: { type: 'order', id },
      cause: { endpoint: 'orders/update', sourceId: changed },
      context: { order: { id, status: 'fulfilled', previousStatus: 'pending' } },
    });

    await send('orders/update', { id, order_status: 'fulfilled', note: 'same status again' });
    await orderWhere(id, (o) => o.details.note === 'same status again');
    await send('orders/update', { id, total_price: '18.00' });
    const order = await orderWhere(id, (o) => o.details.total_price === '18.00');
    expect(order.status).toBe('fulfilled');
    await expectTriggerKinds(['order_status_changed']);
  });

  it('orders/cancelled stores the status cancelled and starts no flow', async () => {
    await freshStore();
    const id = uid('order');
    await send('orders/create', orderData(id, { order_status: 'pending' }));
    await orderWhere(id, () => true);
    await send('orders/cancelled', { id });
    const order = await orderWhere(id, (o) => o.status === 'cancelled');
    expect(order.statusHistory.map((s) => s.status)).toEqual(['pending', 'cancelled']);
    await expectNoTrigger(runtime, store.storeId);
  });

  it('orders/refunded stores the status refunded and starts the "order refunded" flow', async () => {
    await freshStore();
    const id = uid('order');
    await send('orders/create', orderData(id, { order_status: 'paid' }));
    await orderWhere(id, () => true);
    const src = await send('orders/refunded', { id });
    expect((await orderWhere(id, (o) => o.status === 'refunded')).status).toBe('refunded');
    const [trigger] = await awaitTriggers(store.storeId, 1);
    expect(trigger).toMatchObject({
      kind: 'order_refunded',
      subject: { type: 'order', id },
      contact: { email: 'buyer@example.com', customerId: 'cust-1' },
      cause: { endpoint: 'orders/refunded', sourceId: src },
      context: { order: { status: 'refunded', previousStatus: 'paid' } },
    });
    await expectTriggerKinds(['order_refunded']);
  });

  it('keeps the order status history in order: pending, then paid, then refunded', async () => {
    await freshStore();
    const id = uid('order');
    await send('orders/create', orderData(id, { order_status: 'pending' }));
    await orderWhere(id, () => true);
    await send('orders/update', { id, order_status: 'paid' });
    await send('orders/refunded', { id });
    const order = await orderWhere(id, (o) => o.status === 'refunded');
    expect(order.statusHistory.map(({ status, endpoint }) => ({ status, endpoint }))).toEqual([
      { status: 'pending', endpoint: 'orders/create' },
      { status: 'paid', endpoint: 'orders/update' },
      { status: 'refunded', endpoint: 'orders/refunded' },
    ]);
    const times = order.statusHistory.map((s) => s.at);
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    await expectTriggerKinds(['order_status_changed', 'order_refunded']);
  });

  it('reads order_status PAID (upper case, as the abandoned-checkout procedure shows) as paid', async () => {
    await freshStore();
    const id = uid('order');
    await send('orders/paid', orderData(id, { order_status: 'PAID' }));
    expect((await orderWhere(id, () => true)).status).toBe('paid');
    await awaitTriggers(store.storeId, 1, 'order_paid');
  });
});

describe('rule 5, products: products/create, products/update, products', () => {
  it('products/create stores the product with its variants and starts no flow', async () => {
    await freshStore();
    const id = uid('prod');
    await send('products/create', productData(id, { handle: 'desk-lamp' }));
    const product = await productAt(id, 1);
    expect(product).toMatchObject({
      id,
      title: 'Desk lamp',
      src: 'https://shop.example/lamp.jpg',
      purchaseUrl: `https://shop.example/products/${id}`,
      handle: 'desk-lamp',
      variants: [{ id: `${id}-v1`, sku: 'LAMP-1', price: '19.90', inventoryQuantity: 5, option1: 'Black' }],
    });
    await expectNoTrigger(runtime, store.storeId);
  });

  it('products/update replaces the product and all its variants, and starts no flow', async () => {
    await freshStore();
    const id = uid('prod');
    await send('products/create', productData(id));
    await productAt(id, 1);
    await send(
      'products/update',
      productData(id, {
        title: 'Desk lamp XL',
        variants: [
          { id: `${id}-v2`, price: '29.90', inventory_quantity: 2 },
          { id: `${id}-v3`, price: '39.90', inventory_quantity: 0 },
        ],
      }),
    );
    const product = await productAt(id, 2);
    expect(product.title).toBe('Desk lamp XL');
    expect(product.variants.map((v) => v.id)).toEqual([`${id}-v2`, `${id}-v3`]);
    await expectNoTrigger(runtime, store.storeId);
  });

  it('products creates the product when new and updates it when it exists, with no flow', async () => {
    await freshStore();
    const id = uid('prod');
    await send('products', productData(id));
    expect((await productAt(id, 1)).title).toBe('Desk lamp');
    await send('products', productData(id, { title: 'Floor lamp' }));
    expect((await productAt(id, 2)).title).toBe('Floor lamp');
    await expectNoTrigger(runtime, store.storeId);
  });
});

describe('rule 5, carts and checkouts: carts/create, carts/update, carts, checkouts/create, checkouts/update', () => {
  it('carts/create stores the cart, sets its one-hour timer and starts no flow immediately', async () => {
    await freshStore();
    const token = uid('cart');
    await send('carts/create', cartData(token, { id: 'cart-id-1', customer_id: 'cust-9', first_name: 'Ada' }));
    const cart = await cartAt(token, 1);
    expect(cart).toMatchObject({
      token,
      id: 'cart-id-1',
      email: 'shopper@example.com',
      customerId: 'cust-9',
      firstName: 'Ada',
      checkoutUrl: `https://shop.example/cart/${token}`,
      lineItems: [cartLine('p-1')],
    });
    const schedule = await timerSchedule('cart', store.storeId, token);
    expect(atMs(schedule?.ScheduleExpression)).toBe(Math.floor((cart.updatedAt + 3_600_000) / 1000) * 1000);
    await expectNoTrigger(runtime, store.storeId);
  });

  it('carts/update replaces the lines in full (2 lines, then 1) and starts no flow immediately', async () => {
    await freshStore();
    const token = uid('cart');
    await send('carts/create', cartData(token, { line_items: [cartLine('p-1'), cartLine('p-2')] }));
    expect((await cartAt(token, 1)).lineItems).toHaveLength(2);
    await send('carts/update', cartData(token, { line_items: [cartLine('p-3', { quantity: 2 })] }));
    const cart = await cartAt(token, 2);
    expect(cart.lineItems).toEqual([cartLine('p-3', { quantity: 2 })]);
    await expectNoTrigger(runtime, store.storeId);
  });

  it('carts/update with line_items [] empties the cart', async () => {
    await freshStore();
    const token = uid('cart');
    await send('carts/create', cartData(token, { line_items: [cartLine('p-1'), cartLine('p-2')] }));
    await cartAt(token, 1);
    await send('carts/update', cartData(token, { line_items: [] }));
    const cart = await cartAt(token, 2);
    expect(cart.lineItems).toEqual([]);
    expect(cart.email).toBe('shopper@example.com');
    await expectNoTrigger(runtime, store.storeId);
  });

  it('carts stores the cart and starts no flow immediately', async () => {
    await freshStore();
    const token = uid('cart');
    await send('carts', cartData(token));
    expect((await cartAt(token, 1)).lineItems).toEqual([cartLine('p-1')]);
    expect(await timerSchedule('cart', store.storeId, token)).toBeDefined();
    await expectNoTrigger(runtime, store.storeId);
  });

  it('checkouts/create stores the checkout and sets the 30-minute recovery timer, with no immediate flow', async () => {
    await freshStore();
    const token = uid('checkout');
    const before = Date.now();
    await send('checkouts/create', checkoutData(token, { customer_id: 'cust-3', total_tax: '1.50' }));
    const checkout = await checkoutAt(token, 1);
    expect(checkout).toMatchObject({
      token,
      email: 'shopper@example.com',
      customerId: 'cust-3',
      details: {
        total_price: '10.00',
        total_tax: '1.50',
        abandoned_checkout_url: `https://shop.example/checkouts/${token}/recover`,
      },
    });
    expect(checkout.paidAt).toBeUndefined();
    const due = atMs((await timerSchedule('checkout', store.storeId, token))?.ScheduleExpression);
    expect(due).toBeGreaterThanOrEqual(Math.floor((before + 30 * 60_000) / 1000) * 1000);
    expect(due).toBeLessThanOrEqual(Date.now() + 30 * 60_000);
    await expectNoTrigger(runtime, store.storeId);
  });

  it('checkouts/update merges the checkout fields and starts no flow', async () => {
    await freshStore();
    const token = uid('checkout');
    await send('checkouts/create', checkoutData(token));
    await checkoutAt(token, 1);
    await send('checkouts/update', { token, total_price: '12.00', shipping_address: { city: 'Paris' } });
    const checkout = await checkoutAt(token, 2);
    expect(checkout.details).toMatchObject({
      total_price: '12.00',
      currency: 'USD',
      shipping_address: { city: 'Paris' },
    });
    await expectNoTrigger(runtime, store.storeId);
  });
});

describe('rule 5, page/viewed', () => {
  it('page/viewed keeps the view in the contact history and starts no flow', async () => {
    await freshStore();
    const email = `${uid('viewer')}@example.com`;
    const src = await send('page/viewed', {
      email: email.toUpperCase(),
      product_id: 'p-7',
      url: 'https://shop.example/products/p-7',
      timestamp: 1_700_000_100,
    });
    const views = await until('the page view', async () => {
      const found = await pageViewsOf(store.storeId, `email:${email}`);
      return found.length > 0 ? found : undefined;
    });
    expect(views).toEqual([
      expect.objectContaining({
        sourceId: src,
        productId: 'p-7',
        url: 'https://shop.example/products/p-7',
        viewedAt: 1_700_000_100,
        interface: 'general',
      }),
    ]);
    await expectNoTrigger(runtime, store.storeId);
  });
});

describe('rule 5, products/back_in_stock and products/restock', () => {
  it('products/back_in_stock records the subscription and starts no flow', async () => {
    await freshStore();
    const productId = uid('prod');
    await send('products/back_in_stock', { email: 'Waiter@Example.com', product_id: productId, variant_id: 'v-2' });
    const [subscription] = await subscriptionCount(productId, 1);
    expect(subscription).toMatchObject({ productId, variantId: 'v-2', email: 'waiter@example.com' });
    await expectNoTrigger(runtime, store.storeId);
  });

  it('products/restock starts one "back in stock" notice per subscriber', async () => {
    await freshStore();
    const productId = uid('prod');
    await send('products/create', productData(productId));
    await productAt(productId, 1);
    await send('products/back_in_stock', { email: 'a@example.com', product_id: productId });
    await send('products/back_in_stock', { email: 'b@example.com', product_id: productId, variant_id: 'v-1' });
    await subscriptionCount(productId, 2);
    const src = await send('products/restock', { product_id: productId });
    const triggers = await awaitTriggers(store.storeId, 2, 'back_in_stock');
    expect(triggers.map((t) => t.contact.email).sort()).toEqual(['a@example.com', 'b@example.com']);
    for (const trigger of triggers) {
      expect(trigger).toMatchObject({
        subject: { type: 'product', id: productId },
        cause: { endpoint: 'products/restock', sourceId: src },
        context: { productId, product: { id: productId, title: 'Desk lamp', src: 'https://shop.example/lamp.jpg' } },
      });
    }
    await expectTriggerKinds(['back_in_stock', 'back_in_stock']);
  });
});

describe('rule 5, flow/notify', () => {
  it('flow/notify starts the named custom-notification flow with flow_id and custom in its context', async () => {
    await freshStore();
    const src = await send('flow/notify', {
      flow_id: 'flow-42',
      email: 'member@example.com',
      first_name: 'Ada',
      country_code: 'fr',
      custom: { event: 'level_up', level: 3, points: 120 },
    });
    const [trigger] = await awaitTriggers(store.storeId, 1);
    expect(trigger).toMatchObject({
      kind: 'custom_notification',
      subject: { type: 'flow', id: 'flow-42' },
      contact: { email: 'member@example.com' },
      cause: { endpoint: 'flow/notify', sourceId: src },
      context: {
        flow_id: 'flow-42',
        custom: { event: 'level_up', level: 3, points: 120 },
        email: 'member@example.com',
        first_name: 'Ada',
        country_code: 'FR',
      },
    });
    await expectTriggerKinds(['custom_notification']);
  });
});

describe('rule 1: orders/paid with cart_token and checkout_token cleans abandoned data', () => {
  it('rule 1: orders/paid deletes the cart and marks the checkout paid', async () => {
    await freshStore();
    const cartToken = uid('cart');
    const checkoutToken = uid('checkout');
    const orderId = uid('order');
    await send('carts/create', cartData(cartToken));
    await send('checkouts/create', checkoutData(checkoutToken));
    await cartAt(cartToken, 1);
    await checkoutAt(checkoutToken, 1);

    await send(
      'orders/paid',
      orderData(orderId, { order_status: 'paid', cart_token: cartToken, checkout_token: checkoutToken }),
    );
    const checkout = await until('the checkout marked paid', async () => {
      const found = await checkouts.get(store.storeId, checkoutToken);
      return found?.paidAt !== undefined ? found : undefined;
    });
    expect(checkout).toMatchObject({ paidByOrderId: orderId, seen: true });
    expect(isOpen(await carts.get(store.storeId, cartToken))).toBe(false);
    expect((await orderWhere(orderId, () => true)).status).toBe('paid');
    await expectTriggerKinds(['order_paid']);
  });

  it('rule 1 ("Cart lifecycle"): orders/update with status paid also deletes the cart and marks the checkout paid', async () => {
    await freshStore();
    const cartToken = uid('cart');
    const checkoutToken = uid('checkout');
    const orderId = uid('order');
    await send('carts/create', cartData(cartToken));
    await send('checkouts/create', checkoutData(checkoutToken));
    await send('orders/create', orderData(orderId, { cart_token: cartToken, checkout_token: checkoutToken }));
    await cartAt(cartToken, 1);
    await checkoutAt(checkoutToken, 1);
    await orderWhere(orderId, () => true);
    expect(await carts.get(store.storeId, cartToken)).toBeDefined();

    await send('orders/update', { id: orderId, order_status: 'paid' });
    await until('the checkout marked paid', async () => (await checkouts.get(store.storeId, checkoutToken))?.paidAt);
    expect(isOpen(await carts.get(store.storeId, cartToken))).toBe(false);
    await expectTriggerKinds(['order_status_changed']);
  });

  it('rule 1: a payment that arrives before checkouts/create still marks that checkout paid', async () => {
    await freshStore();
    const checkoutToken = uid('checkout');
    const orderId = uid('order');
    await send('orders/paid', orderData(orderId, { order_status: 'paid', checkout_token: checkoutToken }));
    await until('the paid marker', async () => (await checkouts.get(store.storeId, checkoutToken))?.paidAt);
    await send('checkouts/create', checkoutData(checkoutToken));
    const checkout = await until('the checkout', async () => {
      const found = await checkouts.get(store.storeId, checkoutToken);
      return found?.seen ? found : undefined;
    });
    expect(checkout).toMatchObject({ paidByOrderId: orderId, email: 'shopper@example.com' });
    expect(checkout.paidAt).toBeDefined();
  });
});

describe('rule 2: checkouts/create deletes the matching cart', () => {
  it('rule 2: checkouts/create deletes the cart named by cart_token, and only that cart', async () => {
    await freshStore();
    const cartToken = uid('cart');
    const otherCart = uid('cart');
    const checkoutToken = uid('checkout');
    await send('carts/create', cartData(cartToken));
    await send('carts/create', cartData(otherCart));
    await cartAt(cartToken, 1);
    await cartAt(otherCart, 1);
    await send('checkouts/create', checkoutData(checkoutToken, { cart_token: cartToken }));
    const checkout = await checkoutAt(checkoutToken, 1);
    expect(checkout.cartToken).toBe(cartToken);
    await drained(runtime);
    expect(isOpen(await carts.get(store.storeId, cartToken))).toBe(false);
    expect(await carts.get(store.storeId, otherCart)).toBeDefined();
    await expectNoTrigger(runtime, store.storeId);
  });
});

describe('rule 3: products/restock notifies the back_in_stock subscribers (back_in_stock, then restock)', () => {
  it('rule 3: each subscriber is notified once, the subscriptions are cleared, a second restock notifies nobody', async () => {
    await freshStore();
    const productId = uid('prod');
    await send('products/back_in_stock', { email: 'a@example.com', product_id: productId });
    await send('products/back_in_stock', { email: 'a@example.com', product_id: productId });
    await send('products/back_in_stock', { email: 'b@example.com', product_id: productId });
    await subscriptionCount(productId, 2);

    await send('products/restock', { product_id: productId });
    await awaitTriggers(store.storeId, 2, 'back_in_stock');
    await drained(runtime);
    expect(await subscriptionsOf(productId)).toEqual([]);

    await send('products/restock', { product_id: productId });
    await expectTriggerKinds(['back_in_stock', 'back_in_stock']);
  });

  it("rule 3: a restock of one variant notifies that variant's and the product-wide subscribers only", async () => {
    await freshStore();
    const productId = uid('prod');
    await send('products/back_in_stock', { email: 'any@example.com', product_id: productId });
    await send('products/back_in_stock', { email: 'v1@example.com', product_id: productId, variant_id: 'v-1' });
    await send('products/back_in_stock', { email: 'v2@example.com', product_id: productId, variant_id: 'v-2' });
    await subscriptionCount(productId, 3);

    await send('products/restock', { product_id: productId, variant_id: 'v-1' });
    const triggers = await awaitTriggers(store.storeId, 2, 'back_in_stock');
    expect(triggers.map((t) => t.contact.email).sort()).toEqual(['any@example.com', 'v1@example.com']);
    await expectTriggerKinds(['back_in_stock', 'back_in_stock']);
    const left = await subscriptionsOf(productId);
    expect(left.map((s) => s.email)).toEqual(['v2@example.com']);
  });

  it('rule 3: a products/update whose variant stock goes from 0 to above 0 counts as a restock', async () => {
    await freshStore();
    const productId = uid('prod');
    const variantId = `${productId}-v1`;
    await send('products/create', productData(productId, { variants: [{ id: variantId, inventory_quantity: 0 }] }));
    await productAt(productId, 1);
    await send('products/back_in_stock', {
      email: 'waiting@example.com',
      product_id: productId,
      variant_id: variantId,
    });
    await subscriptionCount(productId, 1);

    const src = await send(
      'products/update',
      productData(productId, { variants: [{ id: variantId, inventory_quantity: 4 }] }),
    );
    const [trigger] = await awaitTriggers(store.storeId, 1, 'back_in_stock');
    expect(trigger).toMatchObject({
      contact: { email: 'waiting@example.com' },
      cause: { endpoint: 'products/update', sourceId: src },
      context: { productId, variantId },
    });
    await drained(runtime);
    expect(await subscriptionsOf(productId)).toEqual([]);
    await expectTriggerKinds(['back_in_stock']);
  });

  it('rule 3: a products/update that keeps the stock above 0 is no restock', async () => {
    await freshStore();
    const productId = uid('prod');
    const variantId = `${productId}-v1`;
    await send('products/create', productData(productId, { variants: [{ id: variantId, inventory_quantity: 2 }] }));
    await productAt(productId, 1);
    await send('products/back_in_stock', { email: 'waiting@example.com', product_id: productId });
    await subscriptionCount(productId, 1);
    await send('products/update', productData(productId, { variants: [{ id: variantId, inventory_quantity: 9 }] }));
    await productAt(productId, 2);
    await expectNoTrigger(runtime, store.storeId);
    expect(await subscriptionsOf(productId)).toHaveLength(1);
  });
});

describe('rule 4: flow/notify passes the user data and custom into the flow context', () => {
  it('rule 4: flow/notify without custom carries an empty custom object and the person given', async () => {
    await freshStore();
    await send('flow/notify', { flow_id: 123, phone: '+33600000000', last_name: 'Hopper' });
    const [trigger] = await awaitTriggers(store.storeId, 1, 'custom_notification');
    expect(trigger).toMatchObject({
      subject: { type: 'flow', id: '123' },
      contact: { phone: '+33600000000' },
      context: { flow_id: '123', custom: {}, phone: '+33600000000', last_name: 'Hopper' },
    });
  });
});

describe("rule 6: ignore_flow 'Y' skips flow triggering", () => {
  it("rule 6: customers/create with ignore_flow 'Y' stores the customer and starts no flow", async () => {
    await freshStore();
    const id = uid('cust');
    await send('customers/create', customerData(id, { ignore_flow: 'Y' }));
    await customerWhere(id, () => true);
    await expectNoTrigger(runtime, store.storeId);
  });

  it("rule 6: customers with ignore_flow 'Y' creates without a flow", async () => {
    await freshStore();
    const id = uid('cust');
    await send('customers', customerData(id, { ignore_flow: 'Y' }));
    await customerWhere(id, () => true);
    await expectNoTrigger(runtime, store.storeId);
  });

  it("rule 6: orders/paid with ignore_flow 'Y' stores the paid order and still cleans the cart, but starts no flow", async () => {
    await freshStore();
    const id = uid('order');
    const cartToken = uid('cart');
    await send('carts/create', cartData(cartToken));
    await cartAt(cartToken, 1);
    await send('orders/paid', orderData(id, { order_status: 'paid', cart_token: cartToken, ignore_flow: 'Y' }));
    expect((await orderWhere(id, () => true)).status).toBe('paid');
    await expectNoTrigger(runtime, store.storeId);
    expect(isOpen(await carts.get(store.storeId, cartToken))).toBe(false);
  });

  it("rule 6: orders/fulfilled, orders/update and orders/refunded with ignore_flow 'Y' start no flow", async () => {
    await freshStore();
    const id = uid('order');
    await send(
      'orders/fulfilled',
      orderData(id, { order_status: 'fulfilled', line_items: [trackedLine()], ignore_flow: 'Y' }),
    );
    await orderWhere(id, (o) => o.status === 'fulfilled');
    await send('orders/update', { id, order_status: 'paid', ignore_flow: 'Y' });
    await orderWhere(id, (o) => o.status === 'paid');
    await send('orders/refunded', { id, ignore_flow: 'Y' });
    await orderWhere(id, (o) => o.status === 'refunded');
    await expectNoTrigger(runtime, store.storeId);
  });

  it("rule 6: flow/notify with ignore_flow 'Y' starts no flow", async () => {
    await freshStore();
    await send('flow/notify', { flow_id: 'flow-1', email: 'skip@example.com', custom: { a: 1 }, ignore_flow: 'Y' });
    // No stored effect: the drained ingest queue proves the event was applied.
    await expectNoTrigger(runtime, store.storeId);
    // The same request without ignore_flow does start it (the check above could fail).
    await send('flow/notify', { flow_id: 'flow-1', email: 'skip@example.com', custom: { a: 1 } });
    await awaitTriggers(store.storeId, 1, 'custom_notification');
    await expectTriggerKinds(['custom_notification']);
  });

  it("rule 6: products/restock with ignore_flow 'Y' notifies nobody and keeps the subscriptions", async () => {
    await freshStore();
    const productId = uid('prod');
    await send('products/back_in_stock', { email: 'a@example.com', product_id: productId });
    await subscriptionCount(productId, 1);
    await send('products/restock', { product_id: productId, ignore_flow: 'Y' });
    await expectNoTrigger(runtime, store.storeId);
    expect(await subscriptionsOf(productId)).toHaveLength(1);
    // A later restock without ignore_flow notifies the kept subscriber.
    await send('products/restock', { product_id: productId });
    await awaitTriggers(store.storeId, 1, 'back_in_stock');
  });

  it("rule 6: a products/update restocking a variant with ignore_flow 'Y' notifies nobody", async () => {
    await freshStore();
    const productId = uid('prod');
    const variantId = `${productId}-v1`;
    await send('products/create', productData(productId, { variants: [{ id: variantId, inventory_quantity: 0 }] }));
    await productAt(productId, 1);
    await send('products/back_in_stock', { email: 'a@example.com', product_id: productId });
    await subscriptionCount(productId, 1);
    await send(
      'products/update',
      productData(productId, { variants: [{ id: variantId, inventory_quantity: 3 }], ignore_flow: 'Y' }),
    );
    await productAt(productId, 2);
    await expectNoTrigger(runtime, store.storeId);
  });
});
