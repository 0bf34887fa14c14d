/**
 * End to end on the local runtime: one test per flow kind of the spec's table "Which endpoints start flows" (abandoned
 * cart and checkout recovery are in engine-recovery.test.ts, with the clock), `flow/notify` conditions, consent and
 * suppression, and the explain views. Flows are created through `POST /api/v1/flows`; mails are read back from the
 * local SES by recipient.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamoSuppressions } from '#shared/adapters/dynamodb/email.repositories.ts';
import { postEvent } from '#test/support/local.ts';
import { api } from '#test/support/webhooks.ts';
import {
  address,
  awaitEvaluations,
  awaitMails,
  contactActivity,
  definedFlow,
  event,
  flowRuns,
  headlessEvent,
  mailsTo,
  newStore,
  presetFlow,
  SENDER,
  settled,
  subscribedCustomer,
  uid,
} from './engine-support.ts';

let runtime: LocalRuntime;

beforeAll(async () => {
  runtime = await startLocalRuntime({ logLevel: 'ERROR' });
});

afterAll(async () => {
  await runtime?.stop();
});

const order = (email: string, extra: Record<string, unknown> = {}) => ({
  id: uid('order'),
  name: `#${uid('n')}`,
  customer_id: uid('cust'),
  email,
  order_status: 'paid',
  total_price: '59.70',
  currency: 'USD',
  line_items: [{ id: 'l1', product_id: 'p-1', title: 'Desk lamp', quantity: 3, price: '19.90' }],
  ...extra,
});

const product = (id: string) => ({
  id,
  title: 'Walnut desk lamp',
  src: `https://shop.example/${id}.jpg`,
  purchase_url: `https://shop.example/products/${id}`,
  variants: [{ id: `${id}-v1`, sku: 'LAMP-1', price: '89.00', inventory_quantity: 0 }],
});

describe('one flow per kind', () => {
  it('customer created: customers/create starts the welcome email', async () => {
    const store = await newStore('Kinds shop');
    await presetFlow(runtime, store, 'customer_created');
    const email = address('new');
    // A source_id beyond the Basic Multilingual Plane: the trigger id carries it through the flows queue.
    const answer = await postEvent(runtime.urls.main, store.apiKey, {
      endpoint: 'customers/create',
      source_id: `🌸${uid('src')}`,
      data: {
        id: uid('cust'),
        email,
        first_name: 'Grace',
        created_at: 1_700_000_000,
        email_marketing_consent: { state: 'subscribed' },
      },
    });
    expect(answer.body).toEqual({ code: 200, message: 'ok' });
    const [mail] = await awaitMails(runtime, email);
    expect(mail?.subject).toBe('Welcome to Kinds shop, Grace!');
  });

  it('subscription welcome: a headless customers/create (a form subscription) starts the welcome email', async () => {
    const store = await newStore('Kinds shop');
    await presetFlow(runtime, store, 'subscription_welcome');
    const email = address('form');
    await headlessEvent(runtime, store, 'customers/create', {
      id: uid('cust'),
      created_at: 1_700_000_000,
      email,
      first_name: 'Lin',
    });
    const [mail] = await awaitMails(runtime, email);
    expect(mail?.subject).toContain('Kinds shop');
    expect(mail?.body.html).toContain('Lin');
  });

  it('order paid: orders/paid mails the order confirmation with its lines', async () => {
    const store = await newStore('Kinds shop');
    await presetFlow(runtime, store, 'order_paid');
    const email = address('buyer');
    const data = order(email);
    await event(runtime, store, 'orders/paid', data);
    const [mail] = await awaitMails(runtime, email);
    expect(mail?.subject).toBe(`Order ${data.name} confirmed`);
    expect(mail?.body.html).toContain('Desk lamp');
    expect(mail?.body.html).toContain('59.70');
  });

  it('order fulfilled: orders/fulfilled mails the shipping notice', async () => {
    const store = await newStore('Kinds shop');
    await presetFlow(runtime, store, 'order_fulfilled');
    const email = address('shipped');
    const data = order(email, {
      order_status: 'fulfilled',
      line_items: [
        {
          id: 'l1',
          product_id: 'p-1',
          title: 'Desk lamp',
          quantity: 1,
          price: '19.90',
          tracking_company: 'UPS',
          tracking_number: '1Z999',
          tracking_url: 'https://ups.example/track/1Z999',
        },
      ],
    });
    await event(runtime, store, 'orders/fulfilled', data);
    const [mail] = await awaitMails(runtime, email);
    expect(mail?.subject).toBe(`Your order ${data.name} is on its way`);
    expect(mail?.body.html).toContain('https://ups.example/track/1Z999');
  });

  it('order status changed: orders/update with a new status mails the change', async () => {
    const store = await newStore('Kinds shop');
    await presetFlow(runtime, store, 'order_status_changed');
    const email = address('status');
    const data = order(email, { order_status: 'pending' });
    await event(runtime, store, 'orders/create', data);
    await settled(runtime);
    await event(runtime, store, 'orders/update', { ...data, order_status: 'cancelled' });
    const [mail] = await awaitMails(runtime, email);
    expect(mail?.subject).toBe(`Order ${data.name}: cancelled`);
  });

  it('order refunded: orders/refunded mails the refund notice', async () => {
    const store = await newStore('Kinds shop');
    await presetFlow(runtime, store, 'order_refunded');
    const email = address('refund');
    const data = order(email, { order_status: 'refunded' });
    await event(runtime, store, 'orders/refunded', data);
    const [mail] = await awaitMails(runtime, email);
    expect(mail?.subject).toBe(`Your refund for order ${data.name}`);
  });

  it('back in stock: products/restock notifies every back_in_stock subscriber with a link to the product', async () => {
    const store = await newStore('Kinds shop');
    await presetFlow(runtime, store, 'back_in_stock');
    const productId = uid('prod');
    const [first, second] = [address('waiter'), address('waiter')];
    await event(runtime, store, 'products/create', product(productId));
    await event(runtime, store, 'products/back_in_stock', { email: first, product_id: productId });
    await event(runtime, store, 'products/back_in_stock', { email: second, product_id: productId });
    await settled(runtime);
    await event(runtime, store, 'products/restock', { product_id: productId });
    for (const email of [first as string, second as string]) {
      const [mail] = await awaitMails(runtime, email);
      expect(mail?.subject).toBe('Walnut desk lamp is back in stock');
      expect(mail?.body.html).toContain(`https://shop.example/products/${productId}`);
    }
  });

  it('browse recovery: a known customer viewing a product gets it by email two hours later', async () => {
    const store = await newStore('Kinds shop');
    const flow = await presetFlow(runtime, store, 'browse_recovery');
    const productId = uid('prod');
    const customerId = uid('cust');
    const email = address('browser');
    await subscribedCustomer(runtime, store, customerId, email);
    await event(runtime, store, 'products/create', product(productId));
    await settled(runtime);
    await headlessEvent(runtime, store, 'page/viewed', {
      requestId: uid('req'),
      type: 'page',
      includeProduct: 1,
      page: { url: `https://shop.example/products/${productId}`, title: 'Walnut desk lamp', productId },
      customerId,
    });
    await settled(runtime);
    const [evaluation] = await awaitEvaluations(runtime, store, flow.id);
    expect(evaluation?.run?.status).toBe('waiting');
    expect(await mailsTo(runtime, email)).toEqual([]);

    await runtime.advanceClock(2 * 3600 + 60);
    const [mail] = await awaitMails(runtime, email);
    expect(mail?.subject).toBe('Still thinking about Walnut desk lamp?');
    expect(mail?.body.html).toContain(`https://shop.example/${productId}.jpg`);
  });

  it('custom notification: flow/notify with custom.level = gold runs only the flow whose condition matches', async () => {
    const store = await newStore('Kinds shop');
    const onLevel = (level: string) => ({
      name: `${level} members`,
      trigger: 'custom_notification',
      consent: 'not_unsubscribed',
      entry: { match: 'all', conditions: [{ field: 'custom.level', op: 'equals', value: level }] },
      steps: [
        {
          type: 'email',
          from: SENDER,
          subject: `For ${level} members: {{ custom.points }} points`,
          html: '<p>Level {{ custom.level }}</p>',
        },
      ],
    });
    const gold = await definedFlow(runtime, store, onLevel('gold'));
    const silver = await definedFlow(runtime, store, onLevel('silver'));
    const email = address('member');
    for (const flow of [gold, silver]) {
      await event(runtime, store, 'flow/notify', { flow_id: flow.id, email, custom: { level: 'gold', points: 120 } });
    }
    // An unknown flow id is skipped silently (spec rule 4).
    await event(runtime, store, 'flow/notify', { flow_id: 'fl_unknown', email, custom: { level: 'gold' } });

    const [mail] = await awaitMails(runtime, email);
    expect(mail?.subject).toBe('For gold members: 120 points');
    await settled(runtime);
    expect(await mailsTo(runtime, email)).toHaveLength(1);
    const [skipped] = await awaitEvaluations(runtime, store, silver.id);
    expect(skipped).toMatchObject({
      outcome: 'skipped',
      reason: 'condition_false',
      detail: { field: 'custom.level', op: 'equals', expected: 'silver', value: 'gold' },
    });
    const { list } = await contactActivity(runtime, store, email);
    expect(list.map((item) => [item.flowId, item.outcome, item.reason ?? null]).sort()).toEqual(
      [
        [gold.id, 'entered', null],
        [silver.id, 'skipped', 'condition_false'],
        ['fl_unknown', 'skipped', 'no_matching_flow'],
      ].sort(),
    );
  });
});

describe('consent, suppression and explain', () => {
  it('sends no marketing email to an unsubscribed contact, and both explain views say why', async () => {
    const store = await newStore('Kinds shop');
    const flow = await presetFlow(runtime, store, 'customer_created');
    const email = address('unsub');
    await event(runtime, store, 'customers/create', {
      id: uid('cust'),
      email,
      created_at: 1_700_000_000,
      email_marketing_consent: { state: 'unsubscribed' },
    });
    const [evaluation] = await awaitEvaluations(runtime, store, flow.id);
    expect(evaluation).toMatchObject({
      outcome: 'skipped',
      reason: 'no_consent',
      email,
      detail: { required: 'subscribed', emailConsent: 'unsubscribed' },
    });
    const { list } = await contactActivity(runtime, store, email.toUpperCase());
    expect(list).toEqual([expect.objectContaining({ flowId: flow.id, reason: 'no_consent' })]);
    await settled(runtime);
    expect(await mailsTo(runtime, email)).toEqual([]);
  });

  it('mails no suppressed address, not even a transactional order email', async () => {
    const store = await newStore('Kinds shop');
    const flow = await presetFlow(runtime, store, 'order_paid');
    const email = address('bounced');
    await dynamoSuppressions().suppress({ storeId: store.storeId, email, reason: 'hard_bounce', at: Date.now() });
    await event(runtime, store, 'orders/paid', order(email));
    const [evaluation] = await awaitEvaluations(runtime, store, flow.id);
    expect(evaluation).toMatchObject({ outcome: 'skipped', reason: 'suppressed' });
    await settled(runtime);
    expect(await mailsTo(runtime, email)).toEqual([]);
  });

  it('pages the runs newest first with an opaque cursor, and shows a run with its email', async () => {
    const store = await newStore('Kinds shop');
    const flow = await presetFlow(runtime, store, 'order_paid');
    const emails = [address('p1'), address('p2'), address('p3')];
    for (const email of emails) {
      await event(runtime, store, 'orders/paid', order(email));
      await awaitMails(runtime, email);
    }
    await settled(runtime);
    await awaitEvaluations(runtime, store, flow.id, 3);
    const first = await flowRuns(runtime, store, flow.id, '?limit=2');
    expect(first.list.map((item) => item.email)).toEqual([emails[2], emails[1]]);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await flowRuns(runtime, store, flow.id, `?limit=2&cursor=${first.nextCursor}`);
    expect(second.list.map((item) => item.email)).toEqual([emails[0]]);
    expect(second.nextCursor).toBeUndefined();
    // A well-formed cursor of the per-contact list (index attributes too) is refused as such, not answered 500.
    const foreign = Buffer.from(
      JSON.stringify({ pk: `STORE#${store.storeId}#EVAL#${flow.id}`, sk: 'x', gsi1pk: 'y', gsi1sk: 'z' }),
    ).toString('base64url');
    const refused = await api(runtime, store.apiKey, 'GET', `/api/v1/flows/${flow.id}/runs?cursor=${foreign}`);
    expect(refused.body).toEqual({ code: 400, message: 'cursor is not a cursor of this list' });
    const [mail] = await mailsTo(runtime, emails[0] as string);
    expect(second.list[0]?.run?.status).toBe('completed');
    expect(second.list[0]?.run?.events.find((e) => e.type === 'emailed')?.messageId).toBe(mail?.messageId);
  });

  it("answers another store's flow exactly like a missing one, and refuses bad queries", async () => {
    const owner = await newStore('Owner');
    const other = await newStore('Other');
    const flow = await presetFlow(runtime, owner, 'order_paid');
    const foreign = await api(runtime, other.apiKey, 'GET', `/api/v1/flows/${flow.id}/runs`);
    const missing = await api(runtime, other.apiKey, 'GET', '/api/v1/flows/fl_doesnotexist/runs');
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(missing.body);
    expect(foreign.body).toEqual({ code: 404, message: 'Flow not found' });

    const anonymous = await api(runtime, undefined, 'GET', `/api/v1/flows/${flow.id}/runs`);
    expect(anonymous.status).toBe(401);
    const badLimit = await api(runtime, owner.apiKey, 'GET', `/api/v1/flows/${flow.id}/runs?limit=1000`);
    expect(badLimit.body).toEqual({ code: 400, message: 'limit must be an integer from 1 to 100' });
    const badCursor = await api(runtime, owner.apiKey, 'GET', `/api/v1/flows/${flow.id}/runs?cursor=bm9wZQ`);
    expect(badCursor.body).toEqual({ code: 400, message: 'cursor is not a cursor of this list' });
    const noEmail = await api(runtime, owner.apiKey, 'GET', '/api/v1/flow-activity');
    expect(noEmail.status).toBe(400);
    // Another store's activity for the same address is not shown.
    const email = address('shared');
    await event(runtime, owner, 'orders/paid', order(email));
    await awaitMails(runtime, email);
    expect((await contactActivity(runtime, other, email)).list).toEqual([]);
  });
});
