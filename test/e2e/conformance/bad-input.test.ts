/**
 * Conformance: bad input on both event interfaces, as a new user would send it (spec "Event envelope", "Headless event
 * payloads", "General event payloads", "Errors", "Limits"; docs/events.md "Request path" and "Validation choices").
 *
 * Every refusal is checked the same way: the status and the body in the interface's own shape, a message naming the
 * field; then that NOTHING was stored — the store's partition holds only the store record (no de-duplication record,
 * no entity) — and that the SAME source_id with a valid payload is then accepted and applied.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalRuntime } from '#local/runtime.ts';
import { dynamo } from '#shared/adapters/aws-clients.ts';
import {
  dynamoCartRepository,
  dynamoCheckoutRepository,
  dynamoOrderRepository,
} from '#shared/adapters/dynamodb/commerce.repositories.ts';
import { dynamoCustomerRepository } from '#shared/adapters/dynamodb/customer.repository.ts';
import { keys } from '#shared/adapters/dynamodb/keys.ts';
import { dynamoProductRepository } from '#shared/adapters/dynamodb/product.repository.ts';
import { queryAll } from '#shared/adapters/dynamodb/query.ts';
import { tableName } from '#shared/adapters/dynamodb/table.ts';
import { ScanCommand } from '#shared/adapters/dynamodb-client.ts';
import {
  acceptedGeneral,
  acceptedHeadless,
  cartData,
  checkoutData,
  customerData,
  drained,
  general,
  headless,
  headlessCartData,
  headlessPageView,
  newStore,
  orderData,
  orderLine,
  pageViewsOf,
  productData,
  sourceId,
  startRuntime,
  triggersOf,
  uid,
  until,
} from '#test/support/harness.ts';

let runtime: LocalRuntime;

beforeAll(async () => {
  runtime = await startRuntime();
});

afterAll(async () => {
  await runtime?.stop();
});

type Interface = 'general' | 'headless';

/** One refusal: what is sent, what is answered, and the valid payload retried with the same source_id. */
interface Refusal {
  readonly name: string;
  readonly endpoint: string;
  /** The bad `data` (the envelope is built around it)... */
  readonly data?: unknown;
  /** ...or the whole body (a string is sent as is), given the source_id. */
  readonly body?: (sourceId: string) => unknown;
  readonly contentType?: string;
  /** HTTP status and body `code`; 412 unless said otherwise. */
  readonly status?: number;
  readonly message: string | RegExp;
  /** A valid payload for `endpoint`, sent afterwards with the same source_id. */
  readonly valid: Record<string, unknown>;
  /** Resolves (not `undefined`) once the valid event's effect is stored. */
  readonly stored: (storeId: string) => Promise<unknown>;
}

/** Every item of the store's partitions (`STORE#<id>…`): the store record, and whatever events wrote. */
const storeItems = async (storeId: string) => {
  const items: { pk: string; sk: string }[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(
      new ScanCommand({
        TableName: tableName(),
        FilterExpression: 'begins_with(pk, :prefix)',
        ExpressionAttributeValues: { ':prefix': `STORE#${storeId}` },
        ConsistentRead: true,
        ExclusiveStartKey,
      }),
    );
    for (const item of page.Items ?? []) items.push({ pk: String(item.pk), sk: String(item.sk) });
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items.sort((a, b) => a.pk.localeCompare(b.pk));
};

/**
 * What creating a store writes under its keys: the store, its exact (empty) contact counters' state, and the mark that
 * its month counters are whole.
 */
const createdStoreItems = (storeId: string) => [
  keys.store(storeId),
  keys.contactCountState(storeId),
  keys.statsMonthsKept(storeId),
];

const refuse = async (iface: Interface, refusal: Refusal) => {
  const store = await newStore('Conformance bad input');
  const src = sourceId('bad');
  const body = refusal.body ? refusal.body(src) : { endpoint: refusal.endpoint, source_id: src, data: refusal.data };
  const options = refusal.contentType ? { contentType: refusal.contentType } : {};
  const answer =
    iface === 'general'
      ? await general(runtime, store.apiKey, body, options)
      : await headless(runtime, store.apiKey, body, options);

  const status = refusal.status ?? 412;
  expect(answer.status).toBe(status);
  expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  const shape = iface === 'general' ? { code: status } : { success: false, code: status };
  expect(answer.body).toEqual({ ...shape, message: expect.any(String) });
  if (typeof refusal.message === 'string') expect(answer.body.message).toBe(refusal.message);
  else expect(answer.body.message).toMatch(refusal.message);

  // Nothing stored: no de-duplication record, no entity, no trigger (only what creating the store wrote).
  await drained(runtime);
  expect(await storeItems(store.storeId)).toEqual(createdStoreItems(store.storeId));

  // The same source_id with a valid payload is accepted (200 / success) and applied.
  if (iface === 'general') await acceptedGeneral(runtime, store, refusal.endpoint, refusal.valid, src);
  else await acceptedHeadless(runtime, store, refusal.endpoint, refusal.valid, src);
  await until(
    `the valid ${refusal.endpoint} to be applied`,
    async () => (await refusal.stored(store.storeId)) ?? false,
  );
};

const customers = dynamoCustomerRepository();
const products = dynamoProductRepository();
const orders = dynamoOrderRepository();
const carts = dynamoCartRepository();
const checkouts = dynamoCheckoutRepository();

const good = {
  customer: customerData('good-customer'),
  customerStored: (storeId: string) => customers.get(storeId, 'good-customer'),
  order: orderData('good-order'),
  orderStored: (storeId: string) => orders.get(storeId, 'good-order'),
  product: productData('good-product'),
  productStored: (storeId: string) => products.get(storeId, 'good-product'),
  cart: cartData('good-cart'),
  headlessCart: headlessCartData('good-cart'),
  cartStored: (storeId: string) => carts.get(storeId, 'good-cart'),
  checkout: checkoutData('good-checkout'),
  checkoutStored: (storeId: string) => checkouts.get(storeId, 'good-checkout'),
  subscription: { product_id: 'good-product', email: 'good@example.com' },
  subscriptionStored: async (storeId: string) => {
    const found = await queryAll(keys.backInStockByProduct(storeId, 'good-product').pk);
    return found.length > 0 ? found : undefined;
  },
  pageViewStored: async (storeId: string, contactKey: string) => {
    const found = await pageViewsOf(storeId, contactKey);
    return found.length > 0 ? found : undefined;
  },
  triggered: async (storeId: string) => {
    const found = await triggersOf(storeId);
    return found.length > 0 ? found : undefined;
  },
};

const GENERAL_ENDPOINT_LIST =
  'customers/create, customers/update, customers, orders/create, orders/paid, orders/fulfilled, orders/update, ' +
  'orders/cancelled, orders/refunded, products/create, products/update, products, carts/create, carts/update, carts, ' +
  'checkouts/create, checkouts/update, page/viewed, products/back_in_stock, products/restock, flow/notify';

/** A body over the 256 KiB limit of docs/events.md; `size` in bytes of filler. */
const oversized = (endpoint: string, data: Record<string, unknown>, size: number) => (src: string) =>
  JSON.stringify({ endpoint, source_id: src, data: { ...data, filler: 'x'.repeat(size) } });

const generalRefusals: Refusal[] = [
  // Missing fields.
  {
    name: 'customers/create without the required email',
    endpoint: 'customers/create',
    data: { id: 'bad-customer', created_at: 1_700_000_000 },
    message: 'data.email is required',
    valid: good.customer,
    stored: good.customerStored,
  },
  {
    name: 'orders/paid without the order id',
    endpoint: 'orders/paid',
    data: { ...orderData('bad-order', { order_status: 'paid' }), id: undefined },
    message: 'data.id is required',
    valid: good.order,
    stored: good.orderStored,
  },
  {
    name: 'carts/create with neither token nor id',
    endpoint: 'carts/create',
    data: { email: 'a@example.com', line_items: [] },
    message: 'data.token is required (or data.id)',
    valid: good.cart,
    stored: good.cartStored,
  },
  {
    name: 'carts/create with a line without its required variant_id',
    endpoint: 'carts/create',
    data: cartData('bad-cart', { line_items: [{ product_id: 'p-1', quantity: 1 }] }),
    message: 'data.line_items[0].variant_id is required',
    valid: good.cart,
    stored: good.cartStored,
  },
  {
    name: 'checkouts/create without its token',
    endpoint: 'checkouts/create',
    data: { ...checkoutData('bad-checkout', { cart_token: 'c-1' }), token: undefined },
    message: 'data.token is required',
    valid: good.checkout,
    stored: good.checkoutStored,
  },
  {
    name: 'page/viewed without the email it is kept under',
    endpoint: 'page/viewed',
    data: { url: 'https://shop.example/', product_id: 'p-1' },
    message: 'data.email is required',
    valid: { email: 'viewer@example.com', url: 'https://shop.example/' },
    stored: (storeId) => good.pageViewStored(storeId, 'email:viewer@example.com'),
  },
  {
    name: 'products/back_in_stock without email or phone',
    endpoint: 'products/back_in_stock',
    data: { product_id: 'bad-product' },
    message: 'data.email is required (or data.phone)',
    valid: good.subscription,
    stored: good.subscriptionStored,
  },
  {
    name: 'products/restock without product_id',
    endpoint: 'products/restock',
    data: { variant_id: 'v-1' },
    message: 'data.product_id is required',
    valid: { product_id: 'good-product' },
    stored: async () => true,
  },
  {
    name: 'flow/notify without flow_id and with a custom that is no object',
    endpoint: 'flow/notify',
    data: { email: 'a@example.com', custom: 'gold' },
    message: 'data.flow_id is required; data.custom must be an object',
    valid: { flow_id: 'flow-1', email: 'a@example.com' },
    stored: good.triggered,
  },
  // Mistyped fields.
  {
    name: 'customers/create with created_at as a date word',
    endpoint: 'customers/create',
    data: customerData('bad-customer', { created_at: 'yesterday' }),
    message: 'data.created_at must be an integer Unix timestamp in seconds or milliseconds',
    valid: good.customer,
    stored: good.customerStored,
  },
  {
    name: 'customers/create with an object as id',
    endpoint: 'customers/create',
    data: customerData('bad-customer', { id: { value: 7 } }),
    message: 'data.id must be a non-empty string',
    valid: good.customer,
    stored: good.customerStored,
  },
  {
    name: 'customers/create with an email that is no address',
    endpoint: 'customers/create',
    data: customerData('bad-customer', { email: 'ada at example' }),
    message: 'data.email must be an email address',
    valid: good.customer,
    stored: good.customerStored,
  },
  {
    name: 'customers/create with a country name instead of a two-letter code',
    endpoint: 'customers/create',
    data: customerData('bad-customer', { country_code: 'France' }),
    message: 'data.country_code must be an ISO 3166-1 alpha-2 code',
    valid: good.customer,
    stored: good.customerStored,
  },
  {
    name: 'orders/create with a currency symbol in the total and a quantity in words',
    endpoint: 'orders/create',
    data: orderData('bad-order', { total_price: '$19.90', line_items: [orderLine({ quantity: 'two' })] }),
    message:
      'data.total_price must be a decimal number without currency symbol; data.line_items[0].quantity must be a number',
    valid: good.order,
    stored: good.orderStored,
  },
  {
    name: 'products/create with a variant price with currency symbol and a fractional stock',
    endpoint: 'products/create',
    data: productData('bad-product', { variants: [{ id: 'v-1', price: '$19.90', inventory_quantity: 1.5 }] }),
    message:
      'data.variants[0].price must be a decimal number without currency symbol; data.variants[0].inventory_quantity must be an integer',
    valid: good.product,
    stored: good.productStored,
  },
  {
    name: 'products/create with an empty main image src',
    endpoint: 'products/create',
    data: productData('bad-product', { src: '' }),
    message: 'data.src must not be empty',
    valid: good.product,
    stored: good.productStored,
  },
  // Wrong enum values.
  {
    name: "orders/create with order_status 'shipped'",
    endpoint: 'orders/create',
    data: orderData('bad-order', { order_status: 'shipped' }),
    message: 'data.order_status must be one of: pending, paid, fulfilled, cancelled, voided, refunded',
    valid: good.order,
    stored: good.orderStored,
  },
  {
    name: "orders/update with order_status 'shipped'",
    endpoint: 'orders/update',
    data: { id: 'bad-order', order_status: 'shipped' },
    message: 'data.order_status must be one of: pending, paid, fulfilled, cancelled, voided, refunded',
    valid: { id: 'good-order', order_status: 'paid' },
    stored: good.orderStored,
  },
  {
    name: "customers/create with consent state 'yes'",
    endpoint: 'customers/create',
    data: customerData('bad-customer', { email_marketing_consent: { state: 'yes' } }),
    message: 'data.email_marketing_consent.state must be one of: subscribed, not_subscribed, unsubscribed',
    valid: good.customer,
    stored: good.customerStored,
  },
  {
    name: "customers/create with ignore_flow 'maybe'",
    endpoint: 'customers/create',
    data: customerData('bad-customer', { ignore_flow: 'maybe' }),
    message: 'data.ignore_flow must be "Y" or "N"',
    valid: good.customer,
    stored: good.customerStored,
  },
  {
    name: 'an endpoint value the interface does not have',
    endpoint: 'customers/create',
    body: (src) => ({ endpoint: 'shipments/create', source_id: src, data: { id: 'bad' } }),
    message: `endpoint must be one of: ${GENERAL_ENDPOINT_LIST}`,
    valid: good.customer,
    stored: good.customerStored,
  },
  // Empty arrays.
  {
    name: 'orders/create with line_items []',
    endpoint: 'orders/create',
    data: orderData('bad-order', { line_items: [] }),
    message: 'data.line_items must have at least one element',
    valid: good.order,
    stored: good.orderStored,
  },
  {
    name: 'products/create with variants []',
    endpoint: 'products/create',
    data: productData('bad-product', { variants: [] }),
    message: 'data.variants must have at least one element',
    valid: good.product,
    stored: good.productStored,
  },
  // The envelope.
  {
    name: 'data as an array',
    endpoint: 'customers/create',
    data: [customerData('bad-customer')],
    message: 'data must be an object',
    valid: good.customer,
    stored: good.customerStored,
  },
  {
    name: 'data as a string',
    endpoint: 'customers/create',
    data: JSON.stringify(customerData('bad-customer')),
    message: 'data must be an object',
    valid: good.customer,
    stored: good.customerStored,
  },
  {
    name: 'data null',
    endpoint: 'customers/create',
    data: null,
    message: 'data must be an object',
    valid: good.customer,
    stored: good.customerStored,
  },
  {
    name: 'no data at all',
    endpoint: 'customers/create',
    body: (src) => ({ endpoint: 'customers/create', source_id: src }),
    message: 'data is required',
    valid: good.customer,
    stored: good.customerStored,
  },
  {
    name: 'a JSON array as the body',
    endpoint: 'customers/create',
    body: (src) => [{ endpoint: 'customers/create', source_id: src, data: customerData('bad-customer') }],
    message: 'body must be a JSON object',
    valid: good.customer,
    stored: good.customerStored,
  },
  {
    name: 'a JSON null as the body',
    endpoint: 'customers/create',
    body: () => 'null',
    message: 'body must be a JSON object',
    valid: good.customer,
    stored: good.customerStored,
  },
  // The body itself.
  {
    name: 'a 2 MB body (413)',
    endpoint: 'customers/create',
    body: oversized('customers/create', customerData('bad-customer'), 2 * 1024 * 1024),
    status: 413,
    message: /larger than/,
    valid: good.customer,
    stored: good.customerStored,
  },
  {
    name: 'a body just over the 256 KiB limit of docs/events.md (413)',
    endpoint: 'customers/create',
    body: oversized('customers/create', customerData('bad-customer'), 256 * 1024),
    status: 413,
    message: 'Request body is larger than 262144 bytes',
    valid: good.customer,
    stored: good.customerStored,
  },
  {
    name: 'malformed JSON',
    endpoint: 'customers/create',
    body: (src) => `{"endpoint":"customers/create","source_id":"${src}","data":{"id":"bad-customer",}`,
    message: 'body is not valid JSON',
    valid: good.customer,
    stored: good.customerStored,
  },
  {
    name: 'valid JSON sent as text/plain',
    endpoint: 'customers/create',
    data: customerData('bad-customer'),
    contentType: 'text/plain',
    message: 'Content-Type must be application/json',
    valid: good.customer,
    stored: good.customerStored,
  },
  {
    name: 'a form-encoded body',
    endpoint: 'customers/create',
    body: (src) => `endpoint=customers%2Fcreate&source_id=${src}&data[id]=bad-customer`,
    contentType: 'application/x-www-form-urlencoded',
    message: 'Content-Type must be application/json',
    valid: good.customer,
    stored: good.customerStored,
  },
  {
    name: 'an empty body',
    endpoint: 'customers/create',
    body: () => '',
    message: 'body is required: a JSON object',
    valid: good.customer,
    stored: good.customerStored,
  },
];

const headlessRefusals: Refusal[] = [
  {
    name: 'page/viewed without requestId',
    endpoint: 'page/viewed',
    data: { ...headlessPageView(), requestId: undefined },
    message: 'data.requestId is required',
    valid: headlessPageView({ customerId: 'cust-1' }),
    stored: (storeId) => good.pageViewStored(storeId, 'customer:cust-1'),
  },
  {
    name: "page/viewed with type 'product'",
    endpoint: 'page/viewed',
    data: headlessPageView({ type: 'product' }),
    message: 'data.type must be "page"',
    valid: headlessPageView({ customerId: 'cust-1' }),
    stored: (storeId) => good.pageViewStored(storeId, 'customer:cust-1'),
  },
  {
    name: 'page/viewed with includeProduct 2',
    endpoint: 'page/viewed',
    data: headlessPageView({ includeProduct: 2 }),
    message: 'data.includeProduct must be 0 or 1',
    valid: headlessPageView({ customerId: 'cust-1' }),
    stored: (storeId) => good.pageViewStored(storeId, 'customer:cust-1'),
  },
  {
    name: "page/viewed with includeProduct as the string '1'",
    endpoint: 'page/viewed',
    data: headlessPageView({ includeProduct: '1' }),
    message: 'data.includeProduct must be 0 or 1',
    valid: headlessPageView({ customerId: 'cust-1' }),
    stored: (storeId) => good.pageViewStored(storeId, 'customer:cust-1'),
  },
  {
    name: 'page/viewed of a product page without page.productId',
    endpoint: 'page/viewed',
    data: headlessPageView({ includeProduct: 1, page: { url: 'https://shop.example/p', title: 'Lamp' } }),
    message: 'data.page.productId is required on product pages',
    valid: headlessPageView({ customerId: 'cust-1' }),
    stored: (storeId) => good.pageViewStored(storeId, 'customer:cust-1'),
  },
  {
    name: 'page/viewed with page as a URL string',
    endpoint: 'page/viewed',
    data: headlessPageView({ includeProduct: 0, page: 'https://shop.example/' }),
    message: 'data.page must be an object',
    valid: headlessPageView({ customerId: 'cust-1' }),
    stored: (storeId) => good.pageViewStored(storeId, 'customer:cust-1'),
  },
  {
    name: 'carts/create without token and with a fractional quantity',
    endpoint: 'carts/create',
    data: {
      ...headlessCartData('bad-cart'),
      token: undefined,
      line_items: [{ title: 'Lamp', quantity: 1.5, price: '5.00', product_id: 'p-1' }],
    },
    message: 'data.token is required; data.line_items[0].quantity must be an integer',
    valid: good.headlessCart,
    stored: good.cartStored,
  },
  {
    name: 'carts/create without line_items',
    endpoint: 'carts/create',
    data: { ...headlessCartData('bad-cart'), line_items: undefined },
    message: 'data.line_items is required',
    valid: good.headlessCart,
    stored: good.cartStored,
  },
  {
    name: 'carts/update with a line price with currency symbol and no product_id',
    endpoint: 'carts/update',
    data: headlessCartData('bad-cart', { line_items: [{ title: 'Lamp', quantity: 1, price: '€5' }] }),
    message:
      'data.line_items[0].price must be a decimal number without currency symbol; data.line_items[0].product_id is required',
    valid: good.headlessCart,
    stored: good.cartStored,
  },
  {
    name: 'customers/create without created_at',
    endpoint: 'customers/create',
    data: { id: 'bad-customer', email: 'a@example.com' },
    message: 'data.created_at is required',
    valid: { id: 'good-customer', created_at: 1_700_000_000, email: 'good@example.com' },
    stored: good.customerStored,
  },
  {
    name: 'customers/create without email and phone',
    endpoint: 'customers/create',
    data: { id: 'bad-customer', created_at: 1_700_000_000, first_name: 'Ada' },
    message: 'data.email is required (or data.phone)',
    valid: { id: 'good-customer', created_at: 1_700_000_000, email: 'good@example.com' },
    stored: good.customerStored,
  },
  {
    name: "customers/create with consent state 'yes'",
    endpoint: 'customers/create',
    data: {
      id: 'bad-customer',
      created_at: 1_700_000_000,
      email: 'a@example.com',
      email_marketing_consent: { state: 'yes' },
    },
    message: 'data.email_marketing_consent.state must be one of: subscribed, not_subscribed, unsubscribed',
    valid: { id: 'good-customer', created_at: 1_700_000_000, email: 'good@example.com' },
    stored: good.customerStored,
  },
  {
    name: 'products/back_in_stock with an empty variant id',
    endpoint: 'products/back_in_stock',
    data: { product_id: 'bad-product', email: 'a@example.com', product_variants: [''] },
    message: 'data.product_variants[0] must not be empty',
    valid: good.subscription,
    stored: good.subscriptionStored,
  },
  {
    name: 'products/back_in_stock with product_variants as a string',
    endpoint: 'products/back_in_stock',
    data: { product_id: 'bad-product', email: 'a@example.com', product_variants: 'v-1' },
    message: 'data.product_variants must be an array of strings',
    valid: good.subscription,
    stored: good.subscriptionStored,
  },
  {
    name: 'an endpoint value of the general interface only',
    endpoint: 'customers/create',
    body: (src) => ({ endpoint: 'customers/update', source_id: src, data: { id: 'bad-customer' } }),
    message:
      'endpoint must be one of: page/viewed, carts/create, carts/update, customers/create, products/back_in_stock',
    valid: { id: 'good-customer', created_at: 1_700_000_000, email: 'good@example.com' },
    stored: good.customerStored,
  },
  {
    name: 'data as an array',
    endpoint: 'page/viewed',
    data: [headlessPageView()],
    message: 'data must be an object',
    valid: headlessPageView({ customerId: 'cust-1' }),
    stored: (storeId) => good.pageViewStored(storeId, 'customer:cust-1'),
  },
  {
    name: 'data as a string',
    endpoint: 'page/viewed',
    data: 'page',
    message: 'data must be an object',
    valid: headlessPageView({ customerId: 'cust-1' }),
    stored: (storeId) => good.pageViewStored(storeId, 'customer:cust-1'),
  },
  {
    name: 'data null',
    endpoint: 'page/viewed',
    data: null,
    message: 'data must be an object',
    valid: headlessPageView({ customerId: 'cust-1' }),
    stored: (storeId) => good.pageViewStored(storeId, 'customer:cust-1'),
  },
  {
    name: 'a 2 MB body (413)',
    endpoint: 'carts/create',
    body: oversized('carts/create', headlessCartData('bad-cart'), 2 * 1024 * 1024),
    status: 413,
    message: /larger than/,
    valid: good.headlessCart,
    stored: good.cartStored,
  },
  {
    name: 'malformed JSON',
    endpoint: 'carts/create',
    body: (src) => `{"endpoint":"carts/create","source_id":"${src}","data":{'token':'bad-cart'}}`,
    message: 'body is not valid JSON',
    valid: good.headlessCart,
    stored: good.cartStored,
  },
  {
    name: 'valid JSON sent as text/plain',
    endpoint: 'carts/create',
    data: headlessCartData('bad-cart'),
    contentType: 'text/plain;charset=UTF-8',
    message: 'Content-Type must be application/json',
    valid: good.headlessCart,
    stored: good.cartStored,
  },
];

describe('general interface: bad input is refused with {code, message} and stores nothing', () => {
  for (const refusal of generalRefusals) {
    it(`refuses ${refusal.name} (${refusal.status ?? 412}), then accepts the same source_id when valid`, () =>
      refuse('general', refusal));
  }

  it('refuses a 51-character source_id (Limits: at most 50) and stores nothing; 50 characters are accepted', async () => {
    const store = await newStore('Conformance bad input');
    const answer = await general(runtime, store.apiKey, {
      endpoint: 'customers/create',
      source_id: 's'.repeat(51),
      data: good.customer,
    });
    expect(answer.status).toBe(412);
    expect(answer.body).toEqual({ code: 412, message: 'source_id must be at most 50 characters' });
    await drained(runtime);
    expect(await storeItems(store.storeId)).toEqual(createdStoreItems(store.storeId));
    await acceptedGeneral(runtime, store, 'customers/create', good.customer, 's'.repeat(50));
    await until('the customer', async () => good.customerStored(store.storeId));
  });

  it('refuses a source_id that is empty or not a string', async () => {
    const store = await newStore('Conformance bad input');
    for (const [source_id, message] of [
      ['', 'source_id must not be empty'],
      ['   ', 'source_id must not be empty'],
      [42, 'source_id must be a string'],
      [undefined, 'source_id is required'],
    ] as const) {
      const answer = await general(runtime, store.apiKey, {
        endpoint: 'customers/create',
        source_id,
        data: good.customer,
      });
      expect(answer.status, String(source_id)).toBe(412);
      expect(answer.body).toEqual({ code: 412, message });
    }
    await drained(runtime);
    expect(await storeItems(store.storeId)).toEqual(createdStoreItems(store.storeId));
  });
});

describe('headless interface: bad input is refused with {success: false, code, message} and stores nothing', () => {
  for (const refusal of headlessRefusals) {
    it(`refuses ${refusal.name} (${refusal.status ?? 412}), then accepts the same source_id when valid`, () =>
      refuse('headless', refusal));
  }

  it('refuses a 51-character source_id (Limits: at most 50) and stores nothing', async () => {
    const store = await newStore('Conformance bad input');
    const data = { id: uid('sub'), created_at: 1_700_000_000, email: 'a@example.com' };
    const answer = await headless(runtime, store.apiKey, {
      endpoint: 'customers/create',
      source_id: `bis_a@example.com_${'p'.repeat(40)}`.slice(0, 51),
      data,
    });
    expect(answer.status).toBe(412);
    expect(answer.body).toEqual({ success: false, code: 412, message: 'source_id must be at most 50 characters' });
    await drained(runtime);
    expect(await storeItems(store.storeId)).toEqual(createdStoreItems(store.storeId));
    await acceptedHeadless(runtime, store, 'customers/create', data, 'x'.repeat(50));
    await until('the customer', async () => customers.get(store.storeId, data.id));
  });
});
