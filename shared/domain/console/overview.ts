/**
 * The console's store overview and flows page: for a range of days, what the store's emails did (the
 * funnel), the orders they earned (recovered and influenced, apart), the events applied by kind and the webhook
 * deliveries; and each flow with its own funnel. Everything is read from the counters (`shared/domain/attribution`):
 * a few small reads, whatever the store's size.
 */
import { parseStatsRange } from '#shared/domain/attribution/attribute.ts';
import {
  dayOf,
  EMAIL_KINDS,
  type EmailKind,
  kindCounter,
  type Stats,
  summarize,
} from '#shared/domain/attribution/model.ts';
import type { AttributionStore } from '#shared/domain/attribution/ports.ts';
import { countsReader } from '#shared/domain/attribution/read-counts.ts';
import type { Clock } from '#shared/domain/clock.ts';
import type { FlowKind } from '#shared/domain/flows/trigger.ts';
import { ACTIVITY_SCOPES, type Activity, activityOf } from './activity.ts';

export interface OverviewDeps {
  readonly attribution: Pick<AttributionStore, 'days' | 'periods' | 'monthsKept'>;
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

/** One kind of email's funnel: every count is of that kind's emails, so each rate is over its own sent. */
export interface EmailFunnel {
  readonly sent: number;
  readonly delivered: number;
  readonly opened: number;
  readonly clicked: number;
  readonly bounced: number;
  readonly unsubscribed: number;
}

const FUNNEL_OF: readonly (keyof EmailFunnel)[] = ['sent', 'delivered', 'opened', 'clicked', 'bounced', 'unsubscribed'];

/** Each kind's funnel from the store's counters (`kindCounter`), and their total (their sums). */
export const emailFunnels = (
  totals: ReadonlyMap<string, number>,
): { readonly kinds: Readonly<Record<EmailKind, EmailFunnel>>; readonly total: EmailFunnel } => {
  const of = (kind: EmailKind): EmailFunnel =>
    Object.fromEntries(
      FUNNEL_OF.map((name) => [name, totals.get(kindCounter(kind, name === 'sent' ? 'emailed' : name)) ?? 0]),
    ) as unknown as EmailFunnel;
  const kinds = Object.fromEntries(EMAIL_KINDS.map((kind) => [kind, of(kind)])) as Record<EmailKind, EmailFunnel>;
  const total = Object.fromEntries(
    FUNNEL_OF.map((name) => [name, EMAIL_KINDS.reduce((n, kind) => n + kinds[kind][name], 0)]),
  ) as unknown as EmailFunnel;
  return { kinds, total };
};

export interface StoreOverview {
  readonly from: string;
  readonly to: string;
  /** The store's own counters (flow and bulk email alike). */
  readonly totals: Stats;
  /** The store's emails by kind (flow, campaign, bulk) and their total, each counted apart. */
  readonly emails: ReturnType<typeof emailFunnels>;
  /** Events applied by kind, and webhook delivery attempts. */
  readonly activity: Activity;
}

export interface FlowsOverview {
  readonly from: string;
  readonly to: string;
  /** Every flow of the store, by name, with its counters over the range. */
  readonly flows: readonly FlowOverview[];
}

/**
 * The overview of `storeId` for `from`…`to` (inclusive UTC days; default the last 30). Throws on a bad range. The
 * store's, its events' and its webhook deliveries' counters (one batch read up to 33 days), whatever the store's size
 * and its number of flows: each flow's funnel is on the flows page (`flowsOverview`).
 */
export const storeOverview = async (
  deps: Pick<OverviewDeps, 'attribution' | 'clock'>,
  storeId: string,
  query: { from?: string | undefined; to?: string | undefined },
): Promise<StoreOverview> => {
  const now = deps.clock.now();
  const range = parseStatsRange(query, now);
  const read = countsReader(deps.attribution, storeId, dayOf(now));
  // One read by key for the three scopes over the default range: the activity's days, and the store's whole months and
  // the days around them (its totals only: to today, 30 days are a few days and a month); one each over a long one.
  const counts = await read.many(['store', ...ACTIVITY_SCOPES], range, { totalsOnly: ['store'] });
  const totals = counts.get('store')?.totals ?? new Map<string, number>();
  return {
    ...range,
    totals: summarize(range.from, range.to, totals),
    emails: emailFunnels(totals),
    activity: activityOf(counts),
  };
};

/**
 * Every flow of `storeId` with its state and funnel over `from`…`to`: their totals in one read by key while they fit
 * (to today, a few days and a month per flow), else one counter read per flow, side by side.
 */
export const flowsOverview = async (
  deps: OverviewDeps,
  storeId: string,
  query: { from?: string | undefined; to?: string | undefined },
): Promise<FlowsOverview> => {
  const now = deps.clock.now();
  const range = parseStatsRange(query, now);
  const read = countsReader(deps.attribution, storeId, dayOf(now));
  const flows = [...(await deps.flows.list(storeId))].sort(
    (a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id),
  );
  const scopes = flows.map((flow) => `flow#${flow.id}`);
  const counts = await read.many(scopes, range, { totalsOnly: scopes });
  const perFlow = flows.map((flow) => ({
    id: flow.id,
    name: flow.name,
    trigger: flow.trigger,
    enabled: flow.enabled,
    stats: summarize(range.from, range.to, counts.get(`flow#${flow.id}`)?.totals ?? new Map<string, number>()),
  }));
  return { ...range, flows: perFlow };
};
