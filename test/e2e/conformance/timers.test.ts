/**
 * Conformance: the recovery timers (spec "States and transitions": cart lifecycle, checkout and order; "Limits": cart
 * recovery wait 1 hour, checkout recovery wait at least 30 minutes; general rules 1, 2, 6 and the table rows
 * carts/* and checkouts/create). Verified by moving the timers' clock, never by waiting for it.
 *
 * The handlers date a timer by the wall clock (`at` = write time + wait), while the Scheduler emulator fires on the
 * wall clock plus an offset that only grows. Once the offset passes a wait, every timer of that wait set afterwards is
 * due at once, so "not yet" can only be observed for timers set before the offset got there. Hence every scenario is
 * set up in `beforeAll` at offset 0, and the tests run in file order, each moving the clock to at least the offset it
 * needs (`advanceTo`, which never moves it back): 29 min, 30 min, 59 min, the moved cart's old due time, then past the
 * hour. Each test asserts relative to that clock, one scenario (store) at a time.
 */

import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalRuntime } from '#local/runtime.ts';
import { dynamoCartRepository, dynamoCheckoutRepository } from '#shared/adapters/dynamodb/commerce.repositories.ts';
import { dynamoCustomerRepository } from '#shared/adapters/dynamodb/customer.repository.ts';
import type { Cart } from '#shared/domain/carts/model.ts';
import { isOpen } from '#shared/domain/carts/model.ts';
import type { FlowKind } from '#shared/domain/flows/trigger.ts';
import type { CartTimerPayload } from '#shared/domain/timers/model.ts';
import {
  acceptedGeneral,
  acceptedHeadless,
  advanceTo,
  atMs,
  awaitTriggers,
  cartData,
  cartLine,
  checkoutData,
  customerData,
  drained,
  headlessCartData,
  newStore,
  orderData,
  startRuntime,
  type TestStore,
  timerSchedule,
  triggersOf,
  uid,
  until,
} from '#test/support/harness.ts';

const HOUR = 3600;
const HALF_HOUR = 1800;

let runtime: LocalRuntime;
const carts = dynamoCartRepository();
const checkouts = dynamoCheckoutRepository();
const customers = dynamoCustomerRepository();

/** One scenario: its own store, and the cart and/or checkout token it is about. */
interface Scenario {
  readonly store: TestStore;
  readonly cart: string;
  readonly checkout: string;
}

const scenario = async (): Promise<Scenario> => ({
  store: await newStore('Conformance timers'),
  cart: uid('cart'),
  checkout: uid('checkout'),
});

const cartAt = (s: Scenario, revision: number): Promise<Cart> =>
  until(`cart ${s.cart} at revision ${revision}`, async () => {
    const cart = await carts.get(s.store.storeId, s.cart);
    return cart && cart.revision >= revision ? cart : undefined;
  });

const checkoutStored = (s: Scenario) =>
  until(`checkout ${s.checkout}`, async () => (await checkouts.get(s.store.storeId, s.checkout)) ?? undefined);

const scheduled = (kind: 'cart' | 'checkout', s: Scenario) =>
  until(`the ${kind} timer of ${s.store.storeId}`, async () =>
    timerSchedule(kind, s.store.storeId, kind === 'cart' ? s.cart : s.checkout),
  );

/** Waits until the timer fired (its schedule is deleted) and the timer worker has handled it. */
const timerHandled = async (kind: 'cart' | 'checkout', s: Scenario) => {
  await until(`the ${kind} timer of ${s.store.storeId} to fire`, async () => {
    const schedule = await timerSchedule(kind, s.store.storeId, kind === 'cart' ? s.cart : s.checkout);
    return schedule === undefined;
  });
  await drained(runtime, 'timers');
};

const kindsOf = async (s: Scenario): Promise<FlowKind[]> =>
  (await triggersOf(s.store.storeId)).map((t) => t.kind).sort();

// The scenarios, each set up at clock offset 0.
let withEmail: Scenario;
let moved: Scenario;
let movedRevisions: { first: Cart; second: Cart };
let viaCustomer: Scenario;
let viaHeadless: Scenario;
let withoutEmail: Scenario;
let cartIgnored: Scenario;
let checkedOut: Scenario;
let checkout: Scenario;
let paidByOrdersPaid: Scenario;
let paidByOrdersUpdate: Scenario;
let checkoutIgnored: Scenario;

const lines = [cartLine('p-1'), cartLine('p-2', { quantity: 3, product_image_url: 'https://shop.example/p-2.jpg' })];

beforeAll(async () => {
  runtime = await startRuntime();
  expect(runtime.clock.offsetMs).toBe(0);

  moved = await scenario();
  await acceptedGeneral(runtime, moved.store, 'carts/create', cartData(moved.cart, { line_items: [cartLine('p-1')] }));
  const first = await cartAt(moved, 1);
  // The timer is dated by the handlers' wall clock (second precision): let it move on before the cart is written again.
  await new Promise((resolve) => setTimeout(resolve, 2_500));
  await acceptedGeneral(runtime, moved.store, 'carts/update', cartData(moved.cart, { line_items: [cartLine('p-9')] }));
  movedRevisions = { first, second: await cartAt(moved, 2) };

  withEmail = await scenario();
  await acceptedGeneral(runtime, withEmail.store, 'carts/create', cartData(withEmail.cart, { line_items: lines }));

  viaCustomer = await scenario();
  await acceptedGeneral(
    runtime,
    viaCustomer.store,
    'customers/create',
    customerData('known-1', { email: 'known@example.com', first_name: 'Grace', ignore_flow: 'Y' }),
  );
  await until('the known customer', async () => customers.get(viaCustomer.store.storeId, 'known-1'));
  await acceptedGeneral(
    runtime,
    viaCustomer.store,
    'carts/create',
    cartData(viaCustomer.cart, { email: undefined, customer_id: 'known-1' }),
  );

  viaHeadless = await scenario();
  await acceptedGeneral(
    runtime,
    viaHeadless.store,
    'customers/create',
    customerData('known-2', { email: 'headless@example.com', ignore_flow: 'Y' }),
  );
  await until('the known customer', async () => customers.get(viaHeadless.store.storeId, 'known-2'));
  await acceptedHeadless(
    runtime,
    viaHeadless.store,
    'carts/create',
    headlessCartData(viaHeadless.cart, { customer_id: 'known-2' }),
  );

  withoutEmail = await scenario();
  await acceptedGeneral(
    runtime,
    withoutEmail.store,
    'carts/create',
    cartData(withoutEmail.cart, { email: undefined, customer_id: 'nobody-known' }),
  );

  cartIgnored = await scenario();
  await acceptedGeneral(runtime, cartIgnored.store, 'carts/create', cartData(cartIgnored.cart, { ignore_flow: 'Y' }));

  checkedOut = await scenario();
  await acceptedGeneral(runtime, checkedOut.store, 'carts/create', cartData(checkedOut.cart));
  await cartAt(checkedOut, 1);
  await acceptedGeneral(
    runtime,
    checkedOut.store,
    'checkouts/create',
    checkoutData(checkedOut.checkout, { cart_token: checkedOut.cart }),
  );

  checkout = await scenario();
  await acceptedGeneral(
    runtime,
    checkout.store,
    'checkouts/create',
    checkoutData(checkout.checkout, { customer_id: 'cust-5', phone: '+33600000001' }),
  );

  paidByOrdersPaid = await scenario();
  await acceptedGeneral(runtime, paidByOrdersPaid.store, 'carts/create', cartData(paidByOrdersPaid.cart));
  await acceptedGeneral(runtime, paidByOrdersPaid.store, 'checkouts/create', checkoutData(paidByOrdersPaid.checkout));
  await cartAt(paidByOrdersPaid, 1);
  await checkoutStored(paidByOrdersPaid);
  await scheduled('checkout', paidByOrdersPaid);
  await acceptedGeneral(
    runtime,
    paidByOrdersPaid.store,
    'orders/paid',
    orderData(uid('order'), {
      order_status: 'paid',
      cart_token: paidByOrdersPaid.cart,
      checkout_token: paidByOrdersPaid.checkout,
    }),
  );

  paidByOrdersUpdate = await scenario();
  const orderId = uid('order');
  await acceptedGeneral(runtime, paidByOrdersUpdate.store, 'orders/create', orderData(orderId));
  await acceptedGeneral(
    runtime,
    paidByOrdersUpdate.store,
    'checkouts/create',
    checkoutData(paidByOrdersUpdate.checkout),
  );
  await checkoutStored(paidByOrdersUpdate);
  await scheduled('checkout', paidByOrdersUpdate);
  await acceptedGeneral(runtime, paidByOrdersUpdate.store, 'orders/update', {
    id: orderId,
    order_status: 'paid',
    checkout_token: paidByOrdersUpdate.checkout,
  });

  checkoutIgnored = await scenario();
  await acceptedGeneral(
    runtime,
    checkoutIgnored.store,
    'checkouts/create',
    checkoutData(checkoutIgnored.checkout, { ignore_flow: 'Y' }),
  );

  // Everything applied, every timer set, nothing fired yet.
  await drained(runtime, 'ingest');
  for (const s of [withEmail, moved, viaCustomer, viaHeadless, withoutEmail, cartIgnored, paidByOrdersPaid]) {
    await scheduled('cart', s);
  }
  for (const s of [checkedOut, checkout, paidByOrdersPaid, paidByOrdersUpdate, checkoutIgnored]) {
    await scheduled('checkout', s);
  }
  expect(runtime.clock.offsetMs).toBe(0);
});

afterAll(async () => {
  await runtime?.stop();
});

describe('checkout recovery (30-minute wait)', () => {
  it('checkouts/create starts no checkout_recovery before the wait (29 minutes)', async () => {
    await advanceTo(runtime, 29 * 60);
    for (const s of [checkout, checkedOut]) {
      expect(await timerSchedule('checkout', s.store.storeId, s.checkout)).toBeDefined();
      expect(await kindsOf(s)).toEqual([]);
    }
  });

  it('checkouts/create starts exactly one checkout_recovery once 30 minutes passed', async () => {
    await advanceTo(runtime, HALF_HOUR);
    const [trigger] = await awaitTriggers(checkout.store.storeId, 1, 'checkout_recovery');
    expect(trigger).toMatchObject({
      id: `timer#checkout#${checkout.checkout}`,
      subject: { type: 'checkout', id: checkout.checkout },
      contact: { email: 'shopper@example.com', phone: '+33600000001', customerId: 'cust-5' },
      cause: { timer: 'checkout' },
      context: {
        checkout: {
          token: checkout.checkout,
          total_price: '10.00',
          abandoned_checkout_url: `https://shop.example/checkouts/${checkout.checkout}/recover`,
        },
      },
    });
    await timerHandled('checkout', checkout);
    expect(await kindsOf(checkout)).toEqual(['checkout_recovery']);
  });

  it('rule 1: a checkout paid by orders/paid (cart_token + checkout_token) before the wait starts no recovery', async () => {
    await advanceTo(runtime, HALF_HOUR);
    await timerHandled('checkout', paidByOrdersPaid);
    expect((await checkouts.get(paidByOrdersPaid.store.storeId, paidByOrdersPaid.checkout))?.paidAt).toBeDefined();
    expect(await kindsOf(paidByOrdersPaid)).toEqual(['order_paid']);
  });

  it('a checkout paid by orders/update (status paid, checkout_token) before the wait starts no recovery', async () => {
    await advanceTo(runtime, HALF_HOUR);
    await timerHandled('checkout', paidByOrdersUpdate);
    expect(await kindsOf(paidByOrdersUpdate)).toEqual(['order_status_changed']);
  });

  it("rule 6: checkouts/create with ignore_flow 'Y' starts no recovery", async () => {
    await advanceTo(runtime, HALF_HOUR);
    await timerHandled('checkout', checkoutIgnored);
    expect(await kindsOf(checkoutIgnored)).toEqual([]);
  });
});

describe('abandoned-cart recovery (one hour after the cart write)', () => {
  it('a cart with an email starts no abandoned_cart 59 minutes after the write', async () => {
    await advanceTo(runtime, 59 * 60);
    for (const s of [withEmail, moved, viaCustomer, viaHeadless]) {
      expect(await timerSchedule('cart', s.store.storeId, s.cart)).toBeDefined();
      expect(await kindsOf(s)).toEqual([]);
    }
  });

  it('a cart updated before the hour moves its timer: the first write’s hour passes without a flow', async () => {
    const { first, second } = movedRevisions;
    const schedule = await timerSchedule('cart', moved.store.storeId, moved.cart);
    const firstDue = Math.floor((first.updatedAt + HOUR * 1000) / 1000) * 1000;
    const secondDue = Math.floor((second.updatedAt + HOUR * 1000) / 1000) * 1000;
    expect(atMs(schedule?.ScheduleExpression)).toBe(secondDue);
    expect(secondDue - firstDue).toBeGreaterThanOrEqual(2_000);

    // The timers' clock half a second past the first write's hour, well before the second's.
    await advanceTo(runtime, (firstDue + 500 - Date.now()) / 1000);
    expect(runtime.clock.now()).toBeLessThan(secondDue - 500);
    expect(await timerSchedule('cart', moved.store.storeId, moved.cart)).toBeDefined();
    await drained(runtime, 'timers');
    expect(await kindsOf(moved)).toEqual([]);
  });

  it('a cart with an email starts exactly one abandoned_cart after the hour, with the cart lines', async () => {
    await advanceTo(runtime, HOUR);
    const [trigger] = await awaitTriggers(withEmail.store.storeId, 1, 'abandoned_cart');
    expect(trigger).toMatchObject({
      id: `timer#cart#${withEmail.cart}#1`,
      subject: { type: 'cart', id: withEmail.cart },
      contact: { email: 'shopper@example.com' },
      cause: { timer: 'cart#1' },
      context: {
        cart: { token: withEmail.cart, checkoutUrl: `https://shop.example/cart/${withEmail.cart}`, lineItems: lines },
      },
    });
    await timerHandled('cart', withEmail);
    // Another hour fires nothing more: the timer was one-time.
    await advanceTo(runtime, 2 * HOUR);
    await drained(runtime, 'timers');
    expect(await kindsOf(withEmail)).toEqual(['abandoned_cart']);
  });

  it('a cart updated before the hour starts exactly one abandoned_cart after the new hour, for the new revision', async () => {
    await advanceTo(runtime, HOUR);
    const [trigger] = await awaitTriggers(moved.store.storeId, 1, 'abandoned_cart');
    expect(trigger).toMatchObject({
      id: `timer#cart#${moved.cart}#2`,
      cause: { timer: 'cart#2' },
      context: { cart: { lineItems: [cartLine('p-9')] } },
    });
    await timerHandled('cart', moved);
    expect(await kindsOf(moved)).toEqual(['abandoned_cart']);
  });

  it('a late timer of an older cart revision starts nothing (the cart was written since)', async () => {
    const stale: CartTimerPayload = {
      v: 1,
      kind: 'cart',
      storeId: moved.store.storeId,
      token: moved.cart,
      revision: 1,
    };
    const sqs = new SQSClient({});
    await sqs.send(new SendMessageCommand({ QueueUrl: runtime.queueUrls.timers, MessageBody: JSON.stringify(stale) }));
    sqs.destroy();
    await drained(runtime, 'timers');
    expect((await triggersOf(moved.store.storeId)).map((t) => t.id)).toEqual([`timer#cart#${moved.cart}#2`]);
  });

  it('a cart without email but with the customer_id of a known customer triggers with that email', async () => {
    await advanceTo(runtime, HOUR);
    const [trigger] = await awaitTriggers(viaCustomer.store.storeId, 1, 'abandoned_cart');
    expect(trigger).toMatchObject({
      contact: { email: 'known@example.com', customerId: 'known-1' },
      context: { cart: { firstName: 'Grace' } },
    });
    await timerHandled('cart', viaCustomer);
    expect(await kindsOf(viaCustomer)).toEqual(['abandoned_cart']);
  });

  it('a headless carts/create linked by customer_id starts abandoned_cart with the customer email', async () => {
    await advanceTo(runtime, HOUR);
    const [trigger] = await awaitTriggers(viaHeadless.store.storeId, 1, 'abandoned_cart');
    expect(trigger).toMatchObject({
      subject: { type: 'cart', id: viaHeadless.cart },
      contact: { email: 'headless@example.com', customerId: 'known-2' },
      context: { cart: { lineItems: headlessCartData(viaHeadless.cart).line_items } },
    });
    await timerHandled('cart', viaHeadless);
    expect(await kindsOf(viaHeadless)).toEqual(['abandoned_cart']);
  });

  it('a cart without any email (none on the cart, customer unknown) starts no flow', async () => {
    await advanceTo(runtime, HOUR);
    await timerHandled('cart', withoutEmail);
    expect(await carts.get(withoutEmail.store.storeId, withoutEmail.cart)).toBeDefined();
    expect(await kindsOf(withoutEmail)).toEqual([]);
  });

  it("rule 6: a cart written with ignore_flow 'Y' starts no flow", async () => {
    await advanceTo(runtime, HOUR);
    await timerHandled('cart', cartIgnored);
    expect(await kindsOf(cartIgnored)).toEqual([]);
  });

  it('rule 2: a cart deleted by checkouts/create starts no abandoned_cart (only the checkout recovery)', async () => {
    await advanceTo(runtime, HOUR);
    await timerHandled('cart', checkedOut);
    expect(isOpen(await carts.get(checkedOut.store.storeId, checkedOut.cart))).toBe(false);
    expect(await kindsOf(checkedOut)).toEqual(['checkout_recovery']);
  });

  it('rule 1: a cart deleted by orders/paid starts no abandoned_cart', async () => {
    await advanceTo(runtime, HOUR);
    await timerHandled('cart', paidByOrdersPaid);
    expect(await kindsOf(paidByOrdersPaid)).toEqual(['order_paid']);
  });
});
