/**
 * Conformance: the edges of the cart lifecycle (spec "States and transitions": "one hour after the cart write,
 * customer has not reached checkout → recovery flow started"; "checkouts/create → cart deleted"; "payment completed →
 * cart deleted"), and the order endpoints whose name is their status. Every scenario is set up at clock offset 0,
 * then one hour passes for all of them at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalRuntime } from '#local/runtime.ts';
import { dynamoCartRepository, dynamoOrderRepository } from '#shared/adapters/dynamodb/commerce.repositories.ts';
import { isOpen } from '#shared/domain/carts/model.ts';
import {
  acceptedGeneral,
  advanceTo,
  awaitTriggers,
  cartData,
  cartLine,
  checkoutData,
  drained,
  newStore,
  orderData,
  startRuntime,
  type TestStore,
  timerSchedule,
  triggersOf,
  uid,
  until,
} from '#test/support/harness.ts';

let runtime: LocalRuntime;
const carts = dynamoCartRepository();
const orders = dynamoOrderRepository();

const cartOpen = (store: TestStore, token: string) =>
  until(`cart ${token} written`, async () => isOpen(await carts.get(store.storeId, token)));

const scenarios = {} as Record<
  'reopenedAfterPayment' | 'backFromCheckout' | 'emptied' | 'anonymousCheckout',
  { store: TestStore; token: string }
>;

beforeAll(async () => {
  runtime = await startRuntime();

  // A cart paid for, then written again under the same token: a new cart, recovered on its own.
  {
    const store = await newStore('reopened');
    const token = uid('cart');
    await acceptedGeneral(runtime, store, 'carts/create', cartData(token));
    await cartOpen(store, token);
    await acceptedGeneral(runtime, store, 'orders/paid', orderData(uid('order'), { cart_token: token }));
    await until('the cart deleted by the payment', async () => (await carts.get(store.storeId, token))?.closed);
    await acceptedGeneral(runtime, store, 'carts/update', cartData(token, { line_items: [cartLine('p-2')] }));
    await cartOpen(store, token);
    scenarios.reopenedAfterPayment = { store, token };
  }

  // A cart that went to checkout, then was written again: the customer reached checkout, no cart recovery.
  {
    const store = await newStore('back-from-checkout');
    const token = uid('cart');
    await acceptedGeneral(runtime, store, 'carts/create', cartData(token));
    await cartOpen(store, token);
    await acceptedGeneral(runtime, store, 'checkouts/create', checkoutData(uid('checkout'), { cart_token: token }));
    await until('the cart deleted by the checkout', async () => (await carts.get(store.storeId, token))?.closed);
    await acceptedGeneral(runtime, store, 'carts/update', cartData(token));
    await cartOpen(store, token);
    scenarios.backFromCheckout = { store, token };
  }

  // A cart emptied by its last write: nothing to recover.
  {
    const store = await newStore('emptied');
    const token = uid('cart');
    await acceptedGeneral(runtime, store, 'carts/create', cartData(token));
    await acceptedGeneral(runtime, store, 'carts/update', cartData(token, { line_items: [] }));
    await until('the emptied cart', async () => (await carts.get(store.storeId, token))?.lineItems.length === 0);
    scenarios.emptied = { store, token };
  }

  // A checkout nobody can be written to.
  {
    const store = await newStore('anonymous-checkout');
    const token = uid('checkout');
    const { email, ...withoutEmail } = checkoutData(token);
    await acceptedGeneral(runtime, store, 'checkouts/create', withoutEmail);
    await until('the checkout timer', () => timerSchedule('checkout', store.storeId, token));
    scenarios.anonymousCheckout = { store, token };
  }

  await drained(runtime, 'ingest');
  await advanceTo(runtime, 3600);
  await drained(runtime, 'timers');
});

afterAll(async () => {
  await runtime?.stop();
});

describe('cart lifecycle edges', () => {
  it('a cart written again after its payment deleted it is a new cart and is recovered once, with its new lines', async () => {
    const { store, token } = scenarios.reopenedAfterPayment;
    const [trigger] = await awaitTriggers(store.storeId, 1, 'abandoned_cart');
    if (!trigger) throw new Error('no abandoned_cart trigger');
    const all = (await triggersOf(store.storeId)).filter((t) => t.kind === 'abandoned_cart');
    expect(all).toHaveLength(1);
    expect(trigger.subject).toEqual({ type: 'cart', id: token });
    expect(
      (trigger.context.cart as { lineItems: { product_id: string }[] }).lineItems.map((l) => l.product_id),
    ).toEqual(['p-2']);
    // The revision keeps counting across the deletion, so this trigger's id is not the deleted cart's.
    const cart = await carts.get(store.storeId, token);
    expect(cart?.revision).toBe(3);
    expect(trigger.id).toBe(`timer#cart#${token}#3`);
  });

  it('no cart recovery once the customer reached checkout with the cart, even if the cart is written again', async () => {
    const { store, token } = scenarios.backFromCheckout;
    expect((await carts.get(store.storeId, token))?.reachedCheckoutAt).toBeDefined();
    expect((await triggersOf(store.storeId)).filter((t) => t.kind === 'abandoned_cart')).toEqual([]);
    // The checkout itself is recovered instead.
    await awaitTriggers(store.storeId, 1, 'checkout_recovery');
  });

  it('no cart recovery for an emptied cart', async () => {
    const { store } = scenarios.emptied;
    expect(await triggersOf(store.storeId)).toEqual([]);
  });

  it('no checkout recovery when the checkout has no email and no known customer', async () => {
    const { store, token } = scenarios.anonymousCheckout;
    expect(await timerSchedule('checkout', store.storeId, token)).toBeUndefined();
    expect(await triggersOf(store.storeId)).toEqual([]);
  });
});

describe('order endpoints whose name is the status', () => {
  it('orders/paid stores the order as paid even when order_status says pending, keeping what was sent', async () => {
    const store = await newStore('paid-pending');
    const id = uid('order');
    await acceptedGeneral(runtime, store, 'orders/paid', orderData(id, { order_status: 'pending' }));
    const order = await until('the order', () => orders.get(store.storeId, id));
    expect(order.status).toBe('paid');
    expect(order.details.order_status).toBe('pending');
    expect(order.statusHistory.map((change) => change.status)).toEqual(['paid']);
  });
});

describe('the local clock advance', () => {
  it('makes the hour pass for pending timers only: a cart written after an advance still waits its full hour', async () => {
    expect(runtime.clock.offsetMs).toBeGreaterThanOrEqual(3_600_000);
    const store = await newStore('after-advance');
    const token = uid('cart');
    await acceptedGeneral(runtime, store, 'carts/create', cartData(token));
    await until('the cart timer', () => timerSchedule('cart', store.storeId, token));
    // The Scheduler emulator checks every 250 ms: a timer already overdue would have fired by now.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(await timerSchedule('cart', store.storeId, token)).toBeDefined();
    expect(await triggersOf(store.storeId)).toEqual([]);

    // Counted by what this cart's timer did, not by how many timers fired: near midnight UTC the hour also brings the
    // day's history-compaction timers of the file's other stores.
    const { fired } = await runtime.advanceClock(3600);
    expect(fired).toBeGreaterThanOrEqual(1);
    await awaitTriggers(store.storeId, 1, 'abandoned_cart');
    expect(await timerSchedule('cart', store.storeId, token)).toBeUndefined();
  });
});
