/**
 * The console's store overview and flows page (`shared/domain/console/overview.ts`) over the memory counters: the
 * store's and each flow's totals over a range, as the days sum them, from one read by key while they fit (the store's
 * and the flows' months and the days around them, the activity's days).
 */
import { describe, expect, it } from 'vitest';
import { dayOf } from '#shared/domain/attribution/model.ts';
import type { AttributionStore } from '#shared/domain/attribution/ports.ts';
import { flowsOverview, storeOverview } from '#shared/domain/console/overview.ts';
import type { FlowKind } from '#shared/domain/flows/trigger.ts';
import { memoryAttribution } from '#test/support/memory/attribution.ts';

const DAY_MS = 86_400_000;
const NOW = Date.parse('2026-11-27T15:00:00Z');
const FLOWS = ['fl_a', 'fl_b', 'fl_c'].map((id, i) => ({
  id,
  name: `Flow ${i}`,
  trigger: 'cart_abandoned' as FlowKind,
  enabled: true,
}));

/** 90 days of counts up to today (none after it): each flow's day d has d % 5 + i emails, the store their sum. */
const counted = async () => {
  const memory = memoryAttribution();
  for (let d = 0; d < 90; d++) {
    const day = dayOf(NOW - d * DAY_MS);
    for (const [i, flow] of FLOWS.entries()) {
      await memory.store.add('st_a', ['store', `flow#${flow.id}`], day, { emailed: (d % 5) + i, opened: 1 });
    }
    await memory.store.add('st_a', ['events'], day, { 'carts/create': 2 });
  }
  return memory;
};

/** The store, counting its reads (by key, and by days) and the keys each read by key asks for. */
const counting = (store: AttributionStore) => {
  const reads = { periods: [] as number[], days: 0 };
  const spied: AttributionStore = {
    ...store,
    periods: (storeId, asks) => {
      reads.periods.push(asks.reduce((n, ask) => n + ask.days.length + ask.months.length, 0));
      return store.periods(storeId, asks);
    },
    days: (...args) => {
      reads.days++;
      return store.days(...args);
    },
  };
  return { spied, reads };
};

/** Emails of `scope` summed day by day over [from, to]. */
const emailedOver = async (store: AttributionStore, scope: string, from: string, to: string) =>
  (await store.days('st_a', scope, from, to)).reduce((n, { counts }) => n + (counts.emailed ?? 0), 0);

describe('console overview', () => {
  const clock = { now: () => NOW };

  it("answers the store's totals over its default 30 days from its month and the days before it, in one read", async () => {
    const memory = await counted();
    const { spied, reads } = counting(memory.store);
    const overview = await storeOverview({ attribution: spied, clock }, 'st_a', {});
    expect(overview).toMatchObject({ from: '2026-10-29', to: '2026-11-27' });
    expect(overview.totals.emailed).toBe(await emailedOver(memory.store, 'store', '2026-10-29', '2026-11-27'));
    expect(overview.totals.opened).toBe(90);
    expect(overview.activity.eventsApplied).toBe(60);
    // The store: October's last 3 days and November's month; the events and the webhook deliveries: their 30 days.
    expect(reads).toEqual({ periods: [3 + 1 + 30 + 30], days: 0 });
  });

  it("answers each flow's totals over any range to today as its days sum them, in one read while they fit", async () => {
    const memory = await counted();
    const flows = { list: async () => FLOWS };
    for (const back of [0, 1, 6, 29, 45, 89]) {
      const { spied, reads } = counting(memory.store);
      const from = dayOf(NOW - back * DAY_MS);
      const page = await flowsOverview({ attribution: spied, clock, flows }, 'st_a', { from, to: '2026-11-27' });
      expect(page.flows.map((flow) => flow.id)).toEqual(['fl_a', 'fl_b', 'fl_c']);
      for (const flow of page.flows) {
        expect(flow.stats.emailed, `${flow.id} from ${from}`).toBe(
          await emailedOver(memory.store, `flow#${flow.id}`, from, '2026-11-27'),
        );
        expect(flow.stats.opened).toBe(back + 1);
      }
      expect(reads.periods, `from ${from}`).toHaveLength(1);
      expect(reads.days).toBe(0);
    }
    // A range with no whole month in it, to a day before today (November is not whole by then): each flow's days.
    const { spied, reads } = counting(memory.store);
    const past = await flowsOverview({ attribution: spied, clock, flows }, 'st_a', {
      from: '2026-10-05',
      to: '2026-11-20',
    });
    expect(past.flows[1]?.stats.emailed).toBe(await emailedOver(memory.store, 'flow#fl_b', '2026-10-05', '2026-11-20'));
    expect(reads.periods).toEqual([]);
    expect(reads.days).toBe(3);
  });
});
