/**
 * The backtest's replay rules on in-memory ports: which triggers enter the draft flow and why not (consent,
 * suppression, entry conditions, re-entry), simulated waits and exits, rendered subjects, and recovered revenue.
 */
import { describe, expect, it } from 'vitest';
import { backtestFlow } from '#shared/domain/backtest/backtest.ts';
import type { BacktestAnswer } from '#shared/domain/backtest/model.ts';
import type { Flow, FlowStep } from '#shared/domain/flows/flow.ts';
import { runIdOf } from '#shared/domain/flows/run.ts';
import { backtestFakes } from '#test/support/memory/backtest.ts';
import { customerOf, emailStep, flowOf, STORE } from '#test/support/memory/flow-engine.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const T0 = Date.UTC(2026, 9, 1);
const paid: FlowStep = {
  type: 'exit_if',
  id: 'paid',
  condition: { match: 'all', conditions: [{ field: 'activity.order_paid_since_trigger', op: 'exists' }] },
};
const cartFlow = (extra: Partial<Flow> = {}): Flow =>
  flowOf('fl_cart', 'abandoned_cart', {
    enabled: false,
    consent: 'subscribed',
    steps: [
      paid,
      emailStep('first', { subject: 'Your cart, {{ contact.first_name }}' }),
      { type: 'wait', id: 'a-day', seconds: 86_400 },
      { ...paid, id: 'paid-again' },
      emailStep('second', { subject: 'Still thinking?' }),
    ],
    ...extra,
  });

type Fakes = ReturnType<typeof backtestFakes>;
let seq = 0;
const event = (f: Fakes, at: number, endpoint: string, data: Record<string, unknown>) => {
  const sourceId = `src-${++seq}`;
  f.events.push({ storeId: STORE, sourceId, endpoint, interface: 'general', acceptedAt: at, data });
  return sourceId;
};
const cart = (f: Fakes, at: number, token: string, email: string, price = '19.90') =>
  event(f, at, 'carts/create', {
    token,
    email,
    checkout_url: `https://shop.example/cart/${token}`,
    line_items: [{ product_id: 'p-1', variant_id: 'v-1', title: 'Lamp', quantity: 2, price }],
  });
const order = (f: Fakes, at: number, email: string, extra: Record<string, unknown> = {}) =>
  event(f, at, 'orders/paid', {
    id: `order-${++seq}`,
    customer_id: `c-${email}`,
    email,
    name: '#1001',
    order_status: 'paid',
    total_price: '39.80',
    currency: 'EUR',
    line_items: [{ product_id: 'p-1', title: 'Lamp', quantity: 2, price: '19.90' }],
    ...extra,
  });
const contact = (f: Fakes, name: string, consent: 'subscribed' | 'not_subscribed' = 'subscribed') => {
  const email = `${name}@example.com`;
  f.customers.set(
    `c-${email}`,
    customerOf(`c-${email}`, { email, firstName: name, emailConsent: { state: consent, updatedAt: 1 } }),
  );
  return email;
};
const run = (answer: BacktestAnswer, email: string) => answer.runs.find((r) => r.email === email);
const period = { from: T0 / 1000, to: (T0 + 5 * DAY) / 1000, limit: 100 };

describe('backtest replay', () => {
  it('enters abandoned carts an hour after their last write, mails with waits, and never sends', async () => {
    const f = backtestFakes({ flows: [cartFlow()] });
    const ada = contact(f, 'ada');
    cart(f, T0 + 10 * MIN, 'cart-ada', ada);
    event(f, T0 + 30 * MIN, 'carts/update', {
      token: 'cart-ada',
      line_items: [{ product_id: 'p-1', variant_id: 'v-1', title: 'Lamp', quantity: 3, price: '19.90' }],
    });

    const answer = await backtestFlow(f.deps, STORE, 'fl_cart', period);

    const ran = run(answer, ada);
    expect(ran?.runId).toBe(runIdOf(STORE, 'fl_cart', 'timer#cart#cart-ada#2'));
    expect(ran?.enteredAt).toBe(T0 + 30 * MIN + HOUR);
    expect(ran?.emails).toEqual([
      { stepId: 'first', subject: 'Your cart, ada', at: T0 + 30 * MIN + HOUR },
      // The day's wait goes through the timer wheel: released at its due minute.
      { stepId: 'second', subject: 'Still thinking?', at: T0 + 30 * MIN + HOUR + DAY },
    ]);
    expect(ran?.status).toBe('completed');
    expect(answer.summary).toMatchObject({ entered: 1, emails: 2, contactsEmailed: 1, completed: 1, waiting: 0 });
    expect(answer.replayed).toMatchObject({ events: 2, failedEvents: 0 });
  });

  it('exits a run when the cart is paid during its wait, and credits the order as recovered', async () => {
    const f = backtestFakes({ flows: [cartFlow()] });
    const bob = contact(f, 'bob');
    cart(f, T0, 'cart-bob', bob);
    const paidAt = T0 + 3 * HOUR;
    order(f, paidAt, bob, { cart_token: 'cart-bob' });

    const answer = await backtestFlow(f.deps, STORE, 'fl_cart', period);

    const ran = run(answer, bob);
    expect(ran?.emails.map((e) => e.stepId)).toEqual(['first']);
    expect(ran?.status).toBe('exited');
    expect(ran?.exit).toEqual({ reason: 'exit_if', stepId: 'paid-again', at: T0 + HOUR + DAY });
    expect(ran?.recovered).toEqual([
      { orderId: expect.any(String), stepId: 'first', currency: 'EUR', amount: '39.80', at: paidAt },
    ]);
    expect(answer.summary.exited).toEqual({ exit_if: 1 });
    expect(answer.summary.recovered).toEqual({ orders: 1, revenue: { EUR: '39.80' } });
  });

  it('starts nothing for a cart paid within its hour, and counts no revenue for an order without an email before it', async () => {
    const f = backtestFakes({ flows: [cartFlow()] });
    const eve = contact(f, 'eve');
    cart(f, T0, 'cart-eve', eve);
    order(f, T0 + 20 * MIN, eve, { cart_token: 'cart-eve' });

    const answer = await backtestFlow(f.deps, STORE, 'fl_cart', period);

    expect(answer.runs).toEqual([]);
    expect(answer.skipped).toEqual([]);
    expect(answer.summary.recovered).toEqual({ orders: 0, revenue: {} });
  });

  it('skips a contact without consent, a suppressed address and a failed entry condition, with the reason', async () => {
    const f = backtestFakes({
      flows: [
        cartFlow({
          entry: { match: 'all', conditions: [{ field: 'event.total', op: 'greater_than', value: 30 }] },
        }),
      ],
    });
    const cy = contact(f, 'cy', 'not_subscribed');
    const dee = contact(f, 'dee');
    const fay = contact(f, 'fay');
    f.suppressed.add(dee);
    cart(f, T0, 'cart-cy', cy);
    cart(f, T0 + MIN, 'cart-dee', dee);
    cart(f, T0 + 2 * MIN, 'cart-fay', fay, '9.00');

    const answer = await backtestFlow(f.deps, STORE, 'fl_cart', period);

    expect(answer.runs).toEqual([]);
    expect(answer.skipped.map((s) => [s.email, s.reason])).toEqual([
      [cy, 'no_consent'],
      [dee, 'suppressed'],
      [fay, 'condition_false'],
    ]);
    expect(answer.skipped[2]?.detail).toMatchObject({ field: 'event.total', op: 'greater_than', value: 18 });
    expect(answer.summary.skipped).toEqual({ no_consent: 1, suppressed: 1, condition_false: 1 });
    expect(answer.summary.triggers).toBe(3);
  });

  it('applies the re-entry policy across the period: a second cart of the contact is refused', async () => {
    const f = backtestFakes({
      flows: [cartFlow({ reentry: { type: 'once_per_contact' }, steps: [emailStep('only')] })],
    });
    const gus = contact(f, 'gus');
    cart(f, T0, 'cart-1', gus);
    cart(f, T0 + DAY, 'cart-2', gus);

    const answer = await backtestFlow(f.deps, STORE, 'fl_cart', period);

    expect(answer.runs.map((r) => r.subject.id)).toEqual(['cart-1']);
    expect(answer.skipped).toMatchObject([{ reason: 'reentry', subject: { type: 'cart', id: 'cart-2' } }]);
  });

  it('reports a run still waiting at the end of the period with its next step', async () => {
    const f = backtestFakes({ flows: [cartFlow()] });
    const hal = contact(f, 'hal');
    cart(f, T0, 'cart-hal', hal);

    const answer = await backtestFlow(f.deps, STORE, 'fl_cart', { ...period, to: (T0 + 6 * HOUR) / 1000 });

    expect(run(answer, hal)).toMatchObject({
      status: 'waiting',
      nextStepId: 'paid-again',
      waitingUntil: T0 + HOUR + DAY,
    });
    expect(answer.summary.waiting).toBe(1);
  });

  it('replays an unsaved definition under the flow id, and only events of the period', async () => {
    const f = backtestFakes({ flows: [cartFlow()] });
    const ivy = contact(f, 'ivy');
    cart(f, T0 - DAY, 'cart-before', ivy);
    cart(f, T0, 'cart-in', ivy);
    const definition = {
      name: 'Draft',
      trigger: 'abandoned_cart' as const,
      reentry: { type: 'once_per_subject' as const },
      consent: 'subscribed' as const,
      steps: [emailStep('draft', { subject: 'New subject for {{ contact.first_name }}' })],
    };

    const answer = await backtestFlow(f.deps, STORE, 'fl_cart', { ...period, definition } as never);

    expect(answer.runs.map((r) => [r.subject.id, r.emails[0]?.subject])).toEqual([['cart-in', 'New subject for ivy']]);
  });

  it('lists at most `limit` runs and says the list is truncated, while the summary counts all', async () => {
    const f = backtestFakes({ flows: [cartFlow({ steps: [emailStep('only')] })] });
    for (const name of ['j1', 'j2', 'j3']) cart(f, T0 + seq * MIN, `cart-${name}`, contact(f, name));

    const answer = await backtestFlow(f.deps, STORE, 'fl_cart', { ...period, limit: 2 });

    expect(answer.runs).toHaveLength(2);
    expect(answer.truncated).toBe(true);
    expect(answer.summary.entered).toBe(3);
  });

  it('replays the store’s quiet hours and frequency cap: emails deferred to the window, a second one capped', async () => {
    const quietAndCapped = { quietHours: { start: '21:00', end: '08:00' }, frequencyCap: { minHoursBetween: 16 } };
    const f = backtestFakes({
      flows: [cartFlow({ steps: [emailStep('first', { subject: 'Your cart' })] })],
      smartSending: quietAndCapped,
    });
    const ada = contact(f, 'ada');
    // A cart left at 01:00 UTC: its flow starts at 02:00, inside the quiet hours (UTC: the store's zone, no country).
    cart(f, T0 + HOUR, 'cart-1', ada);
    // A second cart at 09:00: its email would go at 10:00, two hours after the first one.
    cart(f, T0 + 9 * HOUR, 'cart-2', ada);

    const answer = await backtestFlow(f.deps, STORE, 'fl_cart', period);

    const [first, second] = answer.runs;
    expect(first?.emails).toEqual([{ stepId: 'first', subject: 'Your cart', at: T0 + 8 * HOUR }]);
    expect(first?.delays).toEqual([
      { stepId: 'first', reason: 'quiet_hours', at: T0 + 2 * HOUR, until: T0 + 8 * HOUR },
    ]);
    expect(second?.status).toBe('exited');
    expect(second?.exit).toMatchObject({ reason: 'frequency_cap', stepId: 'first' });
    expect(answer.summary).toMatchObject({ emails: 1, delayed: { quiet_hours: 1 }, exited: { frequency_cap: 1 } });
  });
});
