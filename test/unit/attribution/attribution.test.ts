/**
 * Attribution rules (docs/attribution.md), on the in-memory port: recovered by cart or checkout token after a flow
 * email, influenced by a click within the window and only when not recovered, each order once, revenue per currency.
 */
import { describe, expect, it } from 'vitest';
import {
  emailClicked,
  emailEventCounted,
  flowEmailed,
  orderPaid,
  parseStatsRange,
  readStats,
  readStepStats,
} from '#shared/domain/attribution/attribute.ts';
import { countsReader } from '#shared/domain/attribution/read-counts.ts';
import type { Order } from '#shared/domain/orders/model.ts';
import { memoryAttribution } from '#test/support/memory/attribution.ts';

const DAY_MS = 86_400_000;
const T0 = Date.parse('2026-11-20T10:00:00Z');
const STORE = 'st_a';
const flowTouch = (at: number, stepId = 'email-1') =>
  ({ kind: 'flow', flowId: 'fl_cart', stepId, runId: 'run_1', at }) as const;

const order = (id: string, details: Record<string, unknown>, extra: Partial<Order> = {}): Order => ({
  storeId: STORE,
  id,
  email: 'ada@example.com',
  details,
  statusHistory: [],
  createdAt: T0,
  updatedAt: T0,
  revision: 1,
  ...extra,
});

const setup = () => {
  const memory = memoryAttribution();
  let now = T0;
  const deps = { attribution: memory.store, clock: { now: () => now } };
  return { memory, deps, at: (ms: number) => (now = ms) };
};

const range = { from: '2026-11-01', to: '2026-11-30' };

describe('recovered', () => {
  it('credits an order paid with the token of a cart a flow emailed about to that flow and step', async () => {
    const { memory, deps, at } = setup();
    await flowEmailed(memory.store, STORE, { type: 'cart', id: 'tok-1' }, flowTouch(T0, 'email-1'));
    await flowEmailed(memory.store, STORE, { type: 'cart', id: 'tok-1' }, flowTouch(T0 + 3600_000, 'email-2'));
    at(T0 + 2 * DAY_MS);
    const decided = await orderPaid(
      deps,
      order('o1', { total_price: '59.90', currency: 'eur' }, { cartToken: 'tok-1' }),
    );
    expect(decided).toMatchObject({ kind: 'recovered', currency: 'EUR', amount: 59.9 });

    const flow = await readStats(countsReader(memory.store, STORE), 'flow#fl_cart', range);
    expect(flow).toMatchObject({
      emailed: 2,
      recovered: { orders: 1, revenue: { EUR: '59.90' } },
      influenced: { orders: 0 },
    });
    // The step of the last email gets the order.
    expect((await readStepStats(countsReader(memory.store, STORE), 'fl_cart', 'email-2', range)).recovered.orders).toBe(
      1,
    );
    expect((await readStepStats(countsReader(memory.store, STORE), 'fl_cart', 'email-1', range)).recovered.orders).toBe(
      0,
    );
    expect((await readStats(countsReader(memory.store, STORE), 'store', range)).recovered.revenue).toEqual({
      EUR: '59.90',
    });
  });

  it('counts an order once, however often its payment event arrives', async () => {
    const { memory, deps } = setup();
    await flowEmailed(memory.store, STORE, { type: 'checkout', id: 'ck-1' }, flowTouch(T0 - 1000));
    const paid = order('o1', { total_price: '10', currency: 'USD' }, { checkoutToken: 'ck-1' });
    await orderPaid(deps, paid);
    await orderPaid(deps, paid);
    expect((await readStats(countsReader(memory.store, STORE), 'store', range)).recovered).toEqual({
      orders: 1,
      revenue: { USD: '10.00' },
    });
  });

  it('does not credit an email about another cart, nor one sent after the payment', async () => {
    const { memory, deps } = setup();
    await flowEmailed(memory.store, STORE, { type: 'cart', id: 'other' }, flowTouch(T0 - 1000));
    await flowEmailed(memory.store, STORE, { type: 'cart', id: 'late' }, flowTouch(T0 + 1000));
    expect(await orderPaid(deps, order('o1', { total_price: '5' }, { cartToken: 'mine' }))).toEqual({ kind: 'none' });
    expect(await orderPaid(deps, order('o2', { total_price: '5' }, { cartToken: 'late' }))).toEqual({ kind: 'none' });
  });
});

describe('influenced', () => {
  it('credits an order by the same contact within the window after a click, when not recovered', async () => {
    const { memory, deps, at } = setup();
    await emailClicked(memory.store, STORE, 'Ada@Example.com', { kind: 'bulk', batchId: 'bt_1', at: T0 }, 'ev1', T0);
    at(T0 + 4 * DAY_MS);
    const decided = await orderPaid(deps, order('o1', { total_price: '20.5', currency: 'GBP' }));
    expect(decided).toMatchObject({ kind: 'influenced', touch: { kind: 'bulk', batchId: 'bt_1' } });
    expect(await readStats(countsReader(memory.store, STORE), 'batch#bt_1', range)).toMatchObject({
      clicked: 1,
      influenced: { orders: 1, revenue: { GBP: '20.50' } },
      recovered: { orders: 0, revenue: {} },
    });
  });

  it('does not credit an order after the window, nor another contact, nor a click counted twice', async () => {
    const { memory, deps, at } = setup();
    await emailClicked(memory.store, STORE, 'ada@example.com', flowTouch(T0), 'ev1', T0);
    await emailClicked(memory.store, STORE, 'ada@example.com', flowTouch(T0), 'ev1', T0);
    at(T0 + 5 * DAY_MS + 1);
    expect(await orderPaid(deps, order('late', { total_price: '1' }))).toEqual({ kind: 'none' });
    expect(await orderPaid(deps, order('other', { total_price: '1' }, { email: 'bob@example.com' }))).toEqual({
      kind: 'none',
    });
    expect((await readStats(countsReader(memory.store, STORE), 'store', range)).clicked).toBe(1);
  });

  it('never mixes with recovered: an order both recovered and clicked counts as recovered only', async () => {
    const { memory, deps } = setup();
    await flowEmailed(memory.store, STORE, { type: 'cart', id: 'tok' }, flowTouch(T0 - 2000));
    await emailClicked(memory.store, STORE, 'ada@example.com', flowTouch(T0 - 1000), 'ev1', T0);
    expect((await orderPaid(deps, order('o1', { total_price: '3' }, { cartToken: 'tok' }))).kind).toBe('recovered');
    const stats = await readStats(countsReader(memory.store, STORE), 'store', range);
    expect(stats.recovered.orders).toBe(1);
    expect(stats.influenced.orders).toBe(0);
  });

  it("uses the store's own window when it has one", async () => {
    const { memory, deps, at } = setup();
    await emailClicked(memory.store, STORE, 'ada@example.com', flowTouch(T0), 'ev1', T0);
    at(T0 + 2 * DAY_MS);
    const oneDay = { ...deps, influenceWindowDays: async () => 1 };
    expect(await orderPaid(oneDay, order('o1', { total_price: '3' }))).toEqual({ kind: 'none' });
  });
});

describe('the funnel', () => {
  it('counts each SES event once per email, under its flow, step and the store', async () => {
    const { memory } = setup();
    const touch = flowTouch(T0, 'email-2');
    await flowEmailed(memory.store, STORE, { type: 'customer', id: 'c1' }, touch);
    for (const counter of ['delivered', 'opened', 'bounced', 'unsubscribed'] as const) {
      await emailEventCounted(memory.store, STORE, touch, counter, `ev-${counter}`);
      await emailEventCounted(memory.store, STORE, touch, counter, `ev-${counter}`);
    }
    const read = countsReader(memory.store, STORE);
    const funnel = { emailed: 1, delivered: 1, opened: 1, bounced: 1, unsubscribed: 1, clicked: 0 };
    expect(await readStats(read, 'store', range)).toMatchObject(funnel);
    expect(await readStats(read, 'flow#fl_cart', range)).toMatchObject(funnel);
    expect(await readStepStats(read, 'fl_cart', 'email-2', range)).toMatchObject(funnel);
    expect(await readStepStats(read, 'fl_cart', 'email-1', range)).toMatchObject({ emailed: 0, delivered: 0 });
  });
});

describe('the range of a stats request', () => {
  it('defaults to the last 30 days and refuses bad dates and long ranges', () => {
    expect(parseStatsRange({}, Date.parse('2026-11-25T12:00:00Z'))).toEqual({ from: '2026-10-27', to: '2026-11-25' });
    expect(() => parseStatsRange({ from: '2026-02-30' }, T0)).toThrow('from must be a date as YYYY-MM-DD');
    expect(() => parseStatsRange({ from: '2026-11-10', to: '2026-11-01' }, T0)).toThrow('to must not be before from');
    expect(() => parseStatsRange({ from: '2024-01-01', to: '2026-01-01' }, T0)).toThrow('a range is at most 366 days');
  });
});

describe('a click reported after the payment it happened before', () => {
  const click = (at: number) => ({ kind: 'bulk', batchId: 'bt_1', at }) as const;
  const store = async (memory: ReturnType<typeof memoryAttribution>) =>
    readStats(countsReader(memory.store, STORE), 'store', range);

  it('influences the order when it arrives, once, counted on the day of the payment', async () => {
    const { memory, deps, at } = setup();
    at(T0 + 60_000);
    expect(await orderPaid(deps, order('o1', { total_price: '12.50', currency: 'EUR' }))).toEqual({ kind: 'none' });
    // SES reports the click, which happened a minute before the payment, two minutes after it.
    await emailClicked(memory.store, STORE, 'Ada@Example.com', click(T0), 'ev1', T0 + 180_000);
    await emailClicked(memory.store, STORE, 'ada@example.com', click(T0), 'ev1', T0 + 190_000);
    await emailClicked(memory.store, STORE, 'ada@example.com', click(T0 + 1000), 'ev2', T0 + 200_000);
    expect(await store(memory)).toMatchObject({
      clicked: 2,
      influenced: { orders: 1, revenue: { EUR: '12.50' } },
      days: [expect.objectContaining({ day: '2026-11-20', influenced: { orders: 1, revenue: { EUR: '12.50' } } })],
    });
    // A payment event delivered again counts nothing anew.
    await orderPaid(deps, order('o1', { total_price: '12.50', currency: 'EUR' }));
    expect((await store(memory)).influenced.orders).toBe(1);
  });

  it('does not influence an order paid before the click happened, nor once the late-click limit has passed', async () => {
    const { memory, deps, at } = setup();
    at(T0);
    await orderPaid(deps, order('before', { total_price: '1' }));
    await emailClicked(memory.store, STORE, 'ada@example.com', click(T0 + 1000), 'ev1', T0 + 2000);
    at(T0 + 10_000);
    await orderPaid(deps, order('stale', { total_price: '1' }, { email: 'bob@example.com' }));
    await emailClicked(memory.store, STORE, 'bob@example.com', click(T0), 'ev2', T0 + 10_000 + 25 * 3_600_000);
    expect((await store(memory)).influenced.orders).toBe(0);
  });

  it('never turns a recovered order into an influenced one', async () => {
    const { memory, deps, at } = setup();
    await flowEmailed(memory.store, STORE, { type: 'cart', id: 'tok' }, flowTouch(T0 - 5000));
    at(T0);
    expect((await orderPaid(deps, order('o1', { total_price: '3' }, { cartToken: 'tok' }))).kind).toBe('recovered');
    await emailClicked(memory.store, STORE, 'ada@example.com', click(T0 - 1000), 'ev1', T0 + 5000);
    const stats = await store(memory);
    expect(stats.recovered.orders).toBe(1);
    expect(stats.influenced.orders).toBe(0);
  });

  it("is seen by the payment when the click is marked between the decision and the order's mark", async () => {
    const { memory, deps, at } = setup();
    at(T0 + 60_000);
    // The click arrives while the payment is being decided: after its read of the last click, before its mark.
    const racing = {
      ...memory.store,
      claimOrder: async (...args: Parameters<typeof memory.store.claimOrder>) => {
        const claimed = await memory.store.claimOrder(...args);
        await emailClicked(memory.store, STORE, 'ada@example.com', click(T0), 'ev1', T0 + 60_000);
        return claimed;
      },
    };
    expect(await orderPaid({ ...deps, attribution: racing }, order('o1', { total_price: '7' }))).toEqual({
      kind: 'none',
    });
    expect((await store(memory)).influenced).toEqual({ orders: 1, revenue: { XXX: '7.00' } });
  });
});
