/**
 * Attribution over HTTP on the local runtime (docs/attribution.md): an abandoned cart emailed by its flow and then paid
 * with the cart's token counts as one recovered order with its amount on the flow, its step and the store; a click on
 * that email followed by another order of the same contact (no token) counts as influenced, never as recovered.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { simulated } from '#test/integration/email-events/support.ts';
import { api } from '#test/support/webhooks.ts';
import {
  address,
  awaitMails,
  cartLine,
  event,
  eventually,
  type FlowView,
  flowRuns,
  newStore,
  presetFlow,
  settled,
  subscribedCustomer,
  type TestStore,
  uid,
} from './engine-support.ts';

let runtime: LocalRuntime;
let store: TestStore;
let flow: FlowView;
const email = address('buyer');
const cart = uid('cart');

interface StatsBody {
  entered: number;
  emailed: number;
  opened: number;
  clicked: number;
  recovered: { orders: number; revenue: Record<string, string> };
  influenced: { orders: number; revenue: Record<string, string> };
  days: { day: string }[];
  steps?: ({ stepId: string } & Omit<StatsBody, 'days' | 'steps'>)[];
}

const stats = async (path: string) => {
  const answer = await api(runtime, store.apiKey, 'GET', path);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return (answer.body as { data: StatsBody }).data;
};

const paidOrder = (extra: Record<string, unknown>) => ({
  id: uid('order'),
  name: '#1001',
  customer_id: uid('cust'),
  email,
  order_status: 'paid',
  line_items: [{ id: 'l1', product_id: 'p-1', title: 'Desk lamp', quantity: 2, price: '19.90' }],
  ...extra,
});

beforeAll(async () => {
  runtime = await startLocalRuntime({ logLevel: 'ERROR' });
  store = await newStore('Attribution Shop');
  await subscribedCustomer(runtime, store, uid('cust'), email);
  flow = await presetFlow(runtime, store, 'abandoned_cart');
  await event(runtime, store, 'carts/create', {
    token: cart,
    email,
    checkout_url: `https://shop.example/cart/${cart}`,
    line_items: [cartLine('p-1', 'Desk lamp', '19.90')],
  });
  await settled(runtime);
});

afterAll(async () => {
  await runtime?.stop();
});

describe('attribution', () => {
  it('counts the paid order carrying the emailed cart token as recovered, with its amount', async () => {
    await runtime.advanceClock(61 * 60);
    await awaitMails(runtime, email, 1);
    await event(runtime, store, 'orders/paid', paidOrder({ total_price: '39.80', currency: 'eur', cart_token: cart }));
    await settled(runtime);

    // The order's attribution is counted as it applies, the run's entry and email through the counters queue: each
    // shows seconds after its own event, in either order.
    const flowStats = await eventually('the recovered order and the run counted', async () => {
      const s = await stats(`/api/v1/flows/${flow.id}/stats`);
      return s.recovered.orders === 1 && s.emailed > 0 ? s : undefined;
    });
    expect(flowStats).toMatchObject({ entered: 1, emailed: 1, recovered: { orders: 1, revenue: { EUR: '39.80' } } });
    expect(flowStats.influenced).toEqual({ orders: 0, revenue: {} });
    expect(flowStats.days).toHaveLength(1);
    const emailedSteps = flowStats.steps?.filter((step) => step.emailed > 0) ?? [];
    expect(emailedSteps).toHaveLength(1);
    expect(emailedSteps[0]?.recovered).toEqual({ orders: 1, revenue: { EUR: '39.80' } });

    const storeStats = await stats('/api/v1/stats');
    expect(storeStats.recovered).toEqual({ orders: 1, revenue: { EUR: '39.80' } });
  });

  it('counts a later order of the same contact after a click on the email as influenced', async () => {
    const { list } = await flowRuns(runtime, store, flow.id);
    const messageId = list.flatMap((item) => item.run?.events ?? []).find((e) => e.type === 'emailed')
      ?.messageId as string;
    expect(messageId).toBeTruthy();
    await simulated(runtime, { messageId, type: 'open', userAgent: 'Mozilla/5.0' });
    await simulated(runtime, { messageId, type: 'click', link: 'https://shop.example/cart', userAgent: 'Mozilla/5.0' });
    // SES events are counted at the end of their worker's batch: the store's and the flow's counters alike. The open
    // and the click may land in different batches, in either order (batches run side by side): wait for both.
    await eventually('the click counted', async () =>
      (await stats('/api/v1/stats')).clicked === 1 ? true : undefined,
    );
    const flowStats = await eventually('the open and the click counted for the flow', async () => {
      const s = await stats(`/api/v1/flows/${flow.id}/stats`);
      return s.clicked === 1 && s.opened === 1 ? s : undefined;
    });
    expect(flowStats).toMatchObject({ opened: 1, clicked: 1 });

    await event(runtime, store, 'orders/paid', paidOrder({ total_price: '12.5', currency: 'EUR' }));
    await settled(runtime);
    const storeStats = await eventually('the influenced order counted', async () => {
      const s = await stats('/api/v1/stats');
      return s.influenced.orders === 1 ? s : undefined;
    });
    expect(storeStats).toMatchObject({
      clicked: 1,
      recovered: { orders: 1, revenue: { EUR: '39.80' } },
      influenced: { orders: 1, revenue: { EUR: '12.50' } },
    });
    expect((await stats(`/api/v1/flows/${flow.id}/stats`)).influenced.orders).toBe(1);
  });

  it('answers 400 to a bad range and 404 to a flow that is not the store’s', async () => {
    const bad = await api(runtime, store.apiKey, 'GET', '/api/v1/stats?from=2026-13-01');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 400, message: 'from must be a date as YYYY-MM-DD' });
    const missing = await api(runtime, store.apiKey, 'GET', '/api/v1/flows/fl_00000000000000000000/stats');
    expect(missing.status).toBe(404);
  });
});
