/**
 * Carts and checkouts ("Cart lifecycle", "Checkout and order"). Each cart write (re)sets the cart's one timer to one
 * hour later; `checkouts/create` stores the checkout, deletes the matching cart and sets the checkout-recovery timer.
 * The flows themselves start when the timers fire (see `../../timers/fire-timer.ts`).
 */
import { applyCartData, type Cart, cartTokenOf } from '#shared/domain/carts/model.ts';
import { applyCheckoutData } from '#shared/domain/checkouts/model.ts';
import type { CartData, CheckoutData } from '#shared/domain/events/payloads/carts.ts';
import type { HeadlessCartData } from '#shared/domain/events/payloads/headless.ts';
import type { IngestMessage } from '#shared/domain/ingest/model.ts';
import { CART_RECOVERY_WAIT_MS, timerName } from '#shared/domain/timers/model.ts';
import { type ApplyDeps, type ApplyOutcome, deleteCart, withRetry } from './context.ts';

/** Marks a cart last written with the publishable key (`Cart.publicWrite`); a store-key write clears the mark. */
const withPublicWrite = (cart: Cart, publicKey: boolean): Cart => {
  const { publicWrite: _, ...rest } = cart;
  return publicKey ? { ...rest, publicWrite: true } : rest;
};

export const applyCart = async (deps: ApplyDeps, message: IngestMessage): Promise<ApplyOutcome> => {
  const data = message.data as CartData | HeadlessCartData;
  const token = cartTokenOf(data as { token?: string; id?: string });
  const cart = await withRetry(async () => {
    const existing = await deps.carts.get(message.storeId, token);
    const next = withPublicWrite(
      applyCartData(existing, data, { storeId: message.storeId, now: deps.clock.now() }),
      message.key === 'publishable',
    );
    await deps.carts.save(next, existing?.revision ?? 0);
    return next;
  });
  // One call per write: the timer is named per cart, so setting it again moves it instead of adding one.
  await deps.timers.set({
    name: timerName('cart', message.storeId, token),
    at: cart.updatedAt + CART_RECOVERY_WAIT_MS,
    payload: { v: 1, kind: 'cart', storeId: message.storeId, token, revision: cart.revision },
  });
  return { applied: 'cart', triggers: [] };
};

export const applyCheckout = async (deps: ApplyDeps, message: IngestMessage): Promise<ApplyOutcome> => {
  const data = message.data as CheckoutData;
  const token = String(data.token);
  const checkout = await withRetry(async () => {
    const existing = await deps.checkouts.get(message.storeId, token);
    const next = applyCheckoutData(existing, data, { storeId: message.storeId, now: deps.clock.now() });
    await deps.checkouts.save(next, existing?.revision ?? 0);
    return next;
  });
  if (message.endpoint !== 'checkouts/create') return { applied: 'checkout', triggers: [] };
  // Rule 2: the checkout replaces the cart; the cart's timer then finds no cart and does nothing.
  if (checkout.cartToken) await deleteCart(deps, message.storeId, checkout.cartToken, 'checkout');
  await deps.timers.set({
    name: timerName('checkout', message.storeId, token),
    at: deps.clock.now() + deps.checkoutRecoveryWaitMs,
    payload: { v: 1, kind: 'checkout', storeId: message.storeId, token },
  });
  return { applied: 'checkout', triggers: [] };
};
