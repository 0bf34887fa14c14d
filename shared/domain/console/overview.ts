/**
 * The console's store overview (issue 17): for a range of days, what the store's emails did (the funnel), the orders
 * they earned (recovered and influenced, apart), each flow with its own funnel, the events applied by kind and the
 * webhook deliveries. Everything is read from the
 * attribution counters (`shared/domain/attribution`): a few small reads per flow, whatever the store's size.
 */
import { parseStatsRange, readStats } from '#shared/domain/attribution/attribute.ts';
import type { Stats } from '#shared/domain/attribution/model.ts';
import type { AttributionStore } from '#shared/domain/attribution/ports.ts';
import type { Clock } from '#shared/domain/clock.ts';
import type { FlowKind } from '#shared/domain/flows/trigger.ts';
import { type Activity, readActivity } from './activity.ts';

export interface OverviewDeps {
  readonly attribution: Pick<AttributionStore, 'days'>;
  readonly flows: {
    list(storeId: string): Promise<readonly { id: string; name: string; trigger: FlowKind; enabled: boolean }[]>;
  };
  readonly clock: Clock;
}

export interface FlowOverview {
  readonly id: string;
  readonly name: string;
  readonly trigger: FlowKind;
  readonly enabled: boolean;
  readonly stats: Stats;
}

export interface StoreOverview {
  readonly from: string;
  readonly to: string;
  /** The store's own counters (flow and bulk email alike). */
  readonly totals: Stats;
  /** Every flow of the store, by name, with its counters over the range. */
  readonly flows: readonly FlowOverview[];
  /** Events applied by kind, and webhook delivery attempts. */
  readonly activity: Activity;
}

const totalsOnly = ({ days: _days, ...stats }: Stats & { days: unknown }): Stats => stats;

/** The overview of `storeId` for `from`…`to` (inclusive UTC days; default the last 30). Throws on a bad range. */
export const storeOverview = async (
  deps: OverviewDeps,
  storeId: string,
  query: { from?: string | undefined; to?: string | undefined },
): Promise<StoreOverview> => {
  const range = parseStatsRange(query, deps.clock.now());
  const [totals, flows, activity] = await Promise.all([
    readStats(deps.attribution, storeId, 'store', range),
    deps.flows.list(storeId),
    readActivity(deps.attribution, storeId, range),
  ]);
  const perFlow = await Promise.all(
    [...flows]
      .sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id))
      .map(async (flow) => ({
        id: flow.id,
        name: flow.name,
        trigger: flow.trigger,
        enabled: flow.enabled,
        stats: totalsOnly(await readStats(deps.attribution, storeId, `flow#${flow.id}`, range)),
      })),
  );
  return { ...range, totals: totalsOnly(totals), flows: perFlow, activity };
};
