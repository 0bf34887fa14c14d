/**
 * End to end on the local runtime, with the local clock advance: the recovery flows created from their presets.
 *
 * Advancing the clock makes the time pass for the timers pending at that moment (see `local/clock.ts`), so the
 * scenarios are set up first and the tests run in file order, each advancing the clock by what it needs: 50 minutes
 * (nothing is due yet; one cart is written again), 11 more (the carts written at the start are an hour old), then 50
 * more (the cart written again is an hour old).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import {
  address,
  awaitEvaluations,
  awaitMails,
  cartLine,
  contactActivity,
  event,
  eventually,
  type FlowView,
  flowRuns,
  mailsTo,
  newStore,
  presetFlow,
  senderOf,
  settled,
  subscribedCustomer,
  type TestStore,
  uid,
} from './engine-support.ts';

let runtime: LocalRuntime;

interface Scenario {
  readonly store: TestStore;
  readonly flow: FlowView;
  readonly email: string;
  readonly cart: string;
}

const scenario = async (preset = 'abandoned_cart'): Promise<Scenario> => {
  const store = await newStore('Flow engine recovery');
  const email = address('shopper');
  await subscribedCustomer(runtime, store, uid('cust'), email);
  return { store, flow: await presetFlow(runtime, store, preset), email, cart: uid('cart') };
};

const cartData = (s: Scenario, lines: unknown[]) => ({
  token: s.cart,
  email: s.email,
  checkout_url: `https://shop.example/cart/${s.cart}`,
  line_items: lines,
});

let plain: Scenario;
let moved: Scenario;
let checkedOut: Scenario;
let paid: Scenario;
let checkout: Scenario;
const checkoutToken = uid('checkout');

beforeAll(async () => {
  runtime = await startLocalRuntime({ logLevel: 'ERROR' });

  plain = await scenario();
  await event(
    runtime,
    plain.store,
    'carts/create',
    cartData(plain, [cartLine('p-1', 'Desk lamp', '19.90'), cartLine('p-2', 'Reading chair', '249.00')]),
  );

  moved = await scenario();
  await event(runtime, moved.store, 'carts/create', cartData(moved, [cartLine('p-1', 'Old line', '5.00')]));

  checkedOut = await scenario();
  await event(runtime, checkedOut.store, 'carts/create', cartData(checkedOut, [cartLine('p-1', 'Desk lamp', '19.90')]));
  await event(runtime, checkedOut.store, 'checkouts/create', {
    token: uid('checkout'),
    cart_token: checkedOut.cart,
    email: checkedOut.email,
    total_price: '39.80',
    abandoned_checkout_url: 'https://shop.example/checkouts/x/recover',
    line_items: [cartLine('p-1', 'Desk lamp', '19.90')],
  });

  paid = await scenario();
  await event(runtime, paid.store, 'carts/create', cartData(paid, [cartLine('p-1', 'Desk lamp', '19.90')]));
  await event(runtime, paid.store, 'orders/paid', {
    id: uid('order'),
    name: '#1001',
    customer_id: uid('cust'),
    email: paid.email,
    order_status: 'paid',
    total_price: '39.80',
    currency: 'USD',
    cart_token: paid.cart,
    line_items: [{ id: 'l1', product_id: 'p-1', title: 'Desk lamp', quantity: 2, price: '19.90' }],
  });

  checkout = await scenario('checkout_recovery');
  await event(runtime, checkout.store, 'checkouts/create', {
    token: checkoutToken,
    email: checkout.email,
    total_price: '249.00',
    currency: 'EUR',
    abandoned_checkout_url: `https://shop.example/checkouts/${checkoutToken}/recover`,
    line_items: [cartLine('p-2', 'Reading chair', '249.00')],
  });
  await settled(runtime);
}, 120_000);

afterAll(async () => {
  await runtime?.stop();
});

describe('recovery flows, by the clock', () => {
  it('at 50 minutes: no cart email yet; the checkout left unpaid for 30 minutes gets its recovery email', async () => {
    await runtime.advanceClock(50 * 60);
    const [mail] = await awaitMails(runtime, checkout.email);
    expect(mail?.subject).toBe('Complete your order at Flow engine recovery');
    expect(mail?.body.html).toContain(`https://shop.example/checkouts/${checkoutToken}/recover`);
    expect(mail?.body.html).toContain('Reading chair');
    await settled(runtime);
    for (const s of [plain, moved, checkedOut, paid]) expect(await mailsTo(runtime, s.email)).toEqual([]);

    // The cart written again at 50 minutes: its hour starts over.
    await event(runtime, moved.store, 'carts/update', cartData(moved, [cartLine('p-7', 'New lamp shade', '12.00')]));
    await settled(runtime);
  });

  it('one hour after the cart was written: the abandoned-cart email lists the cart lines and links to checkout_url', async () => {
    await runtime.advanceClock(11 * 60);
    const [mail] = await awaitMails(runtime, plain.email);
    expect(mail?.subject).toBe('Ada, you left something in your cart');
    expect(mail?.from).toContain(senderOf(plain.store).email);
    // Each line with its image, title, quantity and line price (2 × 19.90, 2 × 249.00), then the total.
    for (const text of [
      'Desk lamp',
      '39.80',
      'Reading chair',
      '498.00',
      'Qty 2',
      '537.80',
      'https://shop.example/p-1.jpg',
    ]) {
      expect(mail?.body.html).toContain(text);
    }
    expect(mail?.body.html).toContain(`https://shop.example/cart/${plain.cart}`);
    expect(mail?.body.text).toContain('Reading chair');
    const unsubscribe = mail?.headers?.find((h) => h.name.toLowerCase() === 'list-unsubscribe')?.value;
    expect(unsubscribe).toMatch(new RegExp(`^<${runtime.urls.sending}/unsubscribe/[^>]+>$`));

    // First email sent (SES accepted it a moment before the run recorded it), now waiting a day for the reminder.
    const evaluation = await eventually('the run waiting for its reminder', async () => {
      const [found] = await awaitEvaluations(runtime, plain.store, plain.flow.id);
      return found?.run?.status === 'waiting' ? found : undefined;
    });
    expect(evaluation).toMatchObject({ outcome: 'entered', triggerKind: 'abandoned_cart', email: plain.email });
    expect(evaluation?.run?.events.map((e) => e.type)).toEqual(['entered', 'emailed', 'waiting']);
    expect(evaluation?.run?.events[1]?.messageId).toBe(mail?.messageId);
  });

  it('a checkout or a paid order before the hour means no cart email, and the cart written again waits its own hour', async () => {
    await settled(runtime);
    expect(await mailsTo(runtime, checkedOut.email)).toEqual([]);
    expect(await mailsTo(runtime, paid.email)).toEqual([]);
    expect(await mailsTo(runtime, moved.email)).toEqual([]);
    // No trigger reached the flows: nothing entered.
    expect((await flowRuns(runtime, checkedOut.store, checkedOut.flow.id)).list).toEqual([]);
    expect((await flowRuns(runtime, paid.store, paid.flow.id)).list).toEqual([]);
  });

  it('one hour after the update, the moved cart gets its email with the updated lines', async () => {
    await runtime.advanceClock(50 * 60);
    const [mail] = await awaitMails(runtime, moved.email);
    expect(mail?.body.html).toContain('New lamp shade');
    expect(mail?.body.html).not.toContain('Old line');
    await settled(runtime);
    expect(await mailsTo(runtime, moved.email)).toHaveLength(1);
    const activity = await contactActivity(runtime, moved.store, moved.email);
    expect(activity.list.map((item) => [item.triggerKind, item.outcome])).toEqual([['abandoned_cart', 'entered']]);
  });
});
