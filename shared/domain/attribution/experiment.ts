/**
 * A/B groups measured (docs/flows.md "A/B splits and holdout", docs/attribution.md "A/B groups"): each run of a flow
 * with a split or a holdout belongs to one group from its entry, and every order its contact pays within the store's
 * influence window after that entry counts for the group, mailed or not. That is the one measure the holdout (which
 * is never mailed) and the branches share, so their revenue per recipient can be compared; it is kept apart from
 * `recovered` and `influenced`, which credit emails.
 *
 * Counters, on the flow's items (one write with its other counts): `group#<group>#entered`, `#orders`,
 * `#revenue_<CUR>` and `#revenueSq_<CUR>` — the sum of the squares of each run's revenue, what the confidence
 * interval needs. A run's second order adds (r + a)² − r² = 2ra + a², with r the run's revenue before it, which the
 * exposure keeps (`addExposureRevenue`, atomic).
 */

import { amountOf, currencyOf, dayOf, withinWindow } from './model.ts';
import type { AttributionStore } from './ports.ts';

/** A group's counter among its flow's: `group#B#entered`. */
export const groupCounter = (group: string, counter: string) => `group#${group}#${counter}`;

/** A group's counters among its flow's totals, under their own names (`entered`, `revenue_EUR`, …). */
export const groupCounts = (flowTotals: ReadonlyMap<string, number>, group: string): Map<string, number> => {
  const prefix = groupCounter(group, '');
  return new Map(
    [...flowTotals].filter(([name]) => name.startsWith(prefix)).map(([name, n]) => [name.slice(prefix.length), n]),
  );
};

/** What an order paid by `email` at `paidAt` adds to the groups of the flows the contact entered within the window. */
export const measureOrder = async (
  store: Pick<AttributionStore, 'exposuresOf' | 'addExposureRevenue' | 'add'>,
  order: { readonly storeId: string; readonly email?: string | undefined; readonly details: Record<string, unknown> },
  paidAt: number,
  windowDays: number,
): Promise<number> => {
  const email = order.email?.toLowerCase();
  if (!email) return 0;
  const exposures = (await store.exposuresOf(order.storeId, email)).filter((e) =>
    withinWindow(e.at, paidAt, windowDays),
  );
  const currency = currencyOf(order.details.currency);
  const amount = amountOf(order.details.total_price);
  let measured = 0;
  for (const exposure of exposures) {
    const before = await store.addExposureRevenue(order.storeId, email, exposure, currency, amount);
    if (before === undefined) continue;
    measured++;
    await store.add(order.storeId, [`flow#${exposure.flowId}`], dayOf(paidAt), {
      [groupCounter(exposure.group, 'orders')]: 1,
      [groupCounter(exposure.group, `revenue_${currency}`)]: amount,
      [groupCounter(exposure.group, `revenueSq_${currency}`)]: 2 * before * amount + amount * amount,
    });
  }
  return measured;
};
