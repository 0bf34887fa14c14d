/**
 * A/B groups measured (docs/attribution.md "A/B groups"), on the in-memory port: orders a contact pays within the
 * window after entering count for the run's group, mailed or not; the sums behind the interval; Welch's difference
 * against a hand-computed example; and the stats section built from the counters.
 */
import { describe, expect, it } from 'vitest';
import { flowStats, orderPaid } from '#shared/domain/attribution/attribute.ts';
import { experimentStats, welch, Z95 } from '#shared/domain/attribution/experiment-stats.ts';
import type { Flow } from '#shared/domain/flows/flow.ts';
import type { Order } from '#shared/domain/orders/model.ts';
import { memoryAttribution } from '#test/support/memory/attribution.ts';

const DAY_MS = 86_400_000;
const T0 = Date.parse('2026-11-20T10:00:00Z');
const STORE = 'st_a';
const FLOW = 'fl_ab';

const order = (id: string, email: string, total: string, currency = 'EUR'): Order => ({
  storeId: STORE,
  id,
  email,
  details: { total_price: total, currency },
  statusHistory: [],
  createdAt: T0,
  updatedAt: T0,
  revision: 1,
});

const flow: Pick<Flow, 'id' | 'steps' | 'holdoutPercent'> = {
  id: FLOW,
  holdoutPercent: 10,
  steps: [
    {
      type: 'split',
      id: 'ab',
      branches: [
        {
          id: 'a',
          percent: 50,
          steps: [{ type: 'email', id: 'mail-a', from: { email: 's@x.example' }, subject: 'A' }],
        },
        {
          id: 'b',
          percent: 50,
          steps: [{ type: 'email', id: 'mail-b', from: { email: 's@x.example' }, subject: 'B' }],
        },
      ],
    },
  ],
};

const setup = () => {
  const memory = memoryAttribution();
  let now = T0;
  const deps = { attribution: memory.store, clock: { now: () => now } };
  const totals = async () => {
    const days = await memory.store.days(STORE, `flow#${FLOW}`, '0000-01-01', '9999-12-31');
    const sums = new Map<string, number>();
    for (const d of days) for (const [k, n] of Object.entries(d.counts)) sums.set(k, (sums.get(k) ?? 0) + n);
    return sums;
  };
  return { memory, deps, totals, at: (ms: number) => (now = ms) };
};

describe('measuring A/B groups', () => {
  it("counts a contact's orders within the window after entry for the run's group, with the run's squared revenue", async () => {
    const { memory, deps, totals, at } = setup();
    await memory.store.markExposure(STORE, 'ada@example.com', {
      flowId: FLOW,
      runId: 'run_1',
      group: 'holdout',
      at: T0,
    });
    at(T0 + DAY_MS);
    await orderPaid(deps, order('o1', 'Ada@Example.com', '10.00'));
    at(T0 + 2 * DAY_MS);
    await orderPaid(deps, order('o2', 'ada@example.com', '30.00'));
    // A redelivered payment is measured once.
    await orderPaid(deps, order('o2', 'ada@example.com', '30.00'));
    const t = await totals();
    expect(t.get('group#holdout#orders')).toBe(2);
    expect(t.get('group#holdout#revenue_EUR')).toBe(40);
    // One run with 40 in all: its square, 1,600 (100 for the first order, then 2·10·30 + 30² = 1,500).
    expect(t.get('group#holdout#revenueSq_EUR')).toBe(1600);
  });

  it('leaves out orders before entry, after the window, and of a run replaced by a later one', async () => {
    const { memory, deps, totals, at } = setup();
    await memory.store.markExposure(STORE, 'bo@example.com', { flowId: FLOW, runId: 'run_1', group: 'a', at: T0 });
    at(T0 - 1000);
    await orderPaid(deps, order('before', 'bo@example.com', '5.00'));
    at(T0 + 6 * DAY_MS);
    await orderPaid(deps, order('late', 'bo@example.com', '7.00'));
    expect((await totals()).get('group#a#orders')).toBeUndefined();

    await memory.store.markExposure(STORE, 'bo@example.com', { flowId: FLOW, runId: 'run_2', group: 'a', at: T0 });
    expect(
      await memory.store.addExposureRevenue(STORE, 'bo@example.com', { flowId: FLOW, runId: 'run_1' }, 'EUR', 1),
    ).toBeUndefined();
  });
});

describe('the difference in revenue per recipient', () => {
  it('matches a hand-computed Welch interval: B = [10, 0, 0, 30], holdout = [0, 0, 0, 0, 20]', () => {
    // B: mean 10, variance (1000 − 40²/4)/3 = 200. Holdout: mean 4, variance (400 − 20²/5)/4 = 80.
    // SE = √(200/4 + 80/5) = √66 ≈ 8.1240; 6 ± 1.96·8.1240 = [−9.9228, 21.9228].
    const d = welch({ n: 4, sum: 40, sumSq: 1000 }, { n: 5, sum: 20, sumSq: 400 });
    expect(d?.difference).toBe(6);
    expect(d?.standardError).toBeCloseTo(Math.sqrt(66), 12);
    expect(d?.low).toBeCloseTo(-9.922822682, 8);
    expect(d?.high).toBeCloseTo(21.922822682, 8);
    expect(Z95).toBeCloseTo(1.96, 2);
  });

  it('gives no interval below two runs in a group', () => {
    expect(welch({ n: 1, sum: 5, sumSq: 25 }, { n: 10, sum: 0, sumSq: 0 })).toBeUndefined();
  });

  it('answers each group and its comparison with the holdout from the flow counters', () => {
    const totals = new Map<string, number>([
      ['group#holdout#entered', 5],
      ['group#holdout#orders', 1],
      ['group#holdout#revenue_EUR', 20],
      ['group#holdout#revenueSq_EUR', 400],
      ['group#a#entered', 4],
      ['group#a#orders', 2],
      ['group#a#revenue_EUR', 40],
      ['group#a#revenueSq_EUR', 1000],
      ['group#b#entered', 3],
      ['step#mail-a#emailed', 4],
      ['step#mail-a#opened', 2],
      ['step#mail-b#emailed', 3],
    ]);
    const stats = experimentStats(flow, totals);
    expect(stats?.groups).toEqual([
      expect.objectContaining({ group: 'holdout', kind: 'holdout', percent: 10, entered: 5, emailed: 0, orders: 1 }),
      expect.objectContaining({
        group: 'a',
        kind: 'branch',
        percent: 45,
        entered: 4,
        emailed: 4,
        opened: 2,
        revenue: { EUR: '40.00' },
        revenuePerRecipient: { EUR: '10.0000' },
      }),
      expect.objectContaining({ group: 'b', entered: 3, emailed: 3, orders: 0, revenue: {} }),
    ]);
    expect(stats?.comparisons).toEqual([
      {
        group: 'a',
        against: 'holdout',
        currency: 'EUR',
        difference: '6.0000',
        ci95: { low: '-9.9228', high: '21.9228' },
        significant: false,
      },
      // B has no revenue: 0 per recipient against the holdout's 4 (its variance 80, B's 0).
      {
        group: 'b',
        against: 'holdout',
        currency: 'EUR',
        difference: '-4.0000',
        ci95: { low: '-11.8399', high: '3.8399' },
        significant: false,
      },
    ]);
  });

  it("counts a holdout without a split against the rest of the runs, whose funnel is the flow's emails", () => {
    const plain: Pick<Flow, 'steps' | 'holdoutPercent'> = {
      holdoutPercent: 20,
      steps: [
        { type: 'email', id: 'first', from: { email: 's@x.example' }, subject: 'One' },
        { type: 'wait', id: 'w', seconds: 60 },
        { type: 'email', id: 'second', from: { email: 's@x.example' }, subject: 'Two' },
      ],
    };
    const totals = new Map([
      ['group#treated#entered', 8],
      ['step#first#emailed', 8],
      ['step#second#emailed', 5],
      ['group#holdout#entered', 2],
    ]);
    expect(experimentStats(plain, totals)?.groups).toEqual([
      expect.objectContaining({ group: 'holdout', percent: 20, entered: 2, emailed: 0 }),
      expect.objectContaining({ group: 'treated', kind: 'treated', percent: 80, entered: 8, emailed: 13 }),
    ]);
  });

  it('compares with the first branch when the flow has no holdout, and leaves plain flows without a section', async () => {
    const noHoldout = experimentStats({ ...flow, holdoutPercent: 0 }, new Map([['group#a#entered', 3]]));
    expect(noHoldout?.groups.map((g) => g.group)).toEqual(['a', 'b']);
    expect(experimentStats({ steps: [], holdoutPercent: 0 }, new Map())).toBeUndefined();

    const memory = memoryAttribution();
    const stats = await flowStats(
      { attribution: memory.store, flows: { get: async () => flow }, clock: { now: () => T0 } },
      STORE,
      FLOW.padEnd(23, 'x'),
      {},
    );
    expect(stats.experiment?.holdoutPercent).toBe(10);
  });
});
