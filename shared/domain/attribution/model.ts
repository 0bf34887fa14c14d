/**
 * Revenue attribution (docs/attribution.md): what Storeflow's emails earned, counted honestly, two ways never mixed.
 *
 * - **Recovered**: an order whose payment completes (`orders/paid`, or `orders/update` with status `paid`) carrying the
 *   `cart_token` or `checkout_token` of a cart or checkout a flow emailed about. Credited to the run's flow and the step
 *   of the last email it sent about that cart or checkout.
 * - **Influenced**: otherwise, an order by the same contact (email address) whose payment completes within the store's
 *   window (default 5 days) after the contact's last click on a Storeflow email. Credited to that email's flow and step,
 *   or its bulk batch.
 *
 * Each order counts once, at its payment, with its `total_price` in its `currency`. Counters are kept per store, flow,
 * flow step, bulk batch and campaign, per UTC day, as events arrive: reading them never scans events or orders.
 */

/** What an email was: a flow run's step, or a bulk batch. */
export type Touch =
  | {
      readonly kind: 'flow';
      readonly flowId: string;
      readonly stepId: string;
      readonly runId: string;
      readonly at: number;
    }
  | { readonly kind: 'bulk'; readonly batchId: string; readonly campaignId?: string; readonly at: number };

/**
 * A run of a flow with A/B groups, remembered for its contact: orders they pay within the influence window after `at`
 * (its entry) are measured for `group` (`experiment.ts`), whether or not the run mailed (a holdout run never does).
 */
export interface Exposure {
  readonly flowId: string;
  readonly runId: string;
  /** `holdout`, a branch id, or `treated` (`shared/domain/flows/split.ts`). */
  readonly group: string;
  /** The run's entry, epoch ms. */
  readonly at: number;
}

export const DEFAULT_INFLUENCE_WINDOW_DAYS = 5;
const DAY_MS = 86_400_000;

/** The email funnel's counters per scope and day (`entered`: runs started, per flow only). */
export const FUNNEL = ['entered', 'emailed', 'delivered', 'opened', 'clicked', 'bounced', 'unsubscribed'] as const;
export type FunnelCounter = (typeof FUNNEL)[number];

/** Revenue is kept per currency: `recoveredRevenue_EUR`, `influencedRevenue_USD`. */
export type RevenueKind = 'recovered' | 'influenced';
export const revenueCounter = (kind: RevenueKind, currency: string) => `${kind}Revenue_${currency}`;

/** ISO 4217 as sent (upper-cased), `XXX` ("no currency") when the order names none or something else. */
export const currencyOf = (value: unknown): string => {
  const code = typeof value === 'string' ? value.trim().toUpperCase() : '';
  return /^[A-Z]{3}$/.test(code) ? code : 'XXX';
};

/** The order's `total_price` as a number (the payload's decimal string), 0 when it has none. */
export const amountOf = (value: unknown): number => {
  const n = typeof value === 'number' ? value : Number(typeof value === 'string' ? value.trim() : Number.NaN);
  return Number.isFinite(n) ? n : 0;
};

/** `YYYY-MM-DD`, UTC. */
export const dayOf = (epochMs: number): string => new Date(epochMs).toISOString().slice(0, 10);

/** The month (`YYYY-MM`) of a day (`YYYY-MM-DD`). */
export const monthOf = (day: string): string => day.slice(0, 7);

/** The scopes of the console's activity counters (`shared/domain/console/activity.ts`), beside attribution's. */
export const EVENTS_SCOPE = 'events';
export const WEBHOOKS_SCOPE = 'webhooks';

/**
 * Whether a scope's counts are also kept per month (`read-counts.ts`): attribution's are (the stats API reads them
 * over a year); the activity counters are not: they are added for every event and delivery batch, where a second
 * write would cost more than reading a long range of their days in the console now and then.
 */
export const keepsMonths = (scope: string): boolean => scope !== EVENTS_SCOPE && scope !== WEBHOOKS_SCOPE;

/** A step's counter, kept on its flow's items (`step#email-1#emailed`): one write counts the flow and its step. */
export const stepCounter = (stepId: string, counter: string) => `step#${stepId}#${counter}`;

/**
 * What counting `deltas` for an email of `touch` adds, per scope: the store's own always; a flow email's flow, with
 * its step's counters under their `stepCounter` names; a bulk email's batch, and its campaign when it has one.
 */
export const countsFor = (
  touch: Touch,
  deltas: Readonly<Record<string, number>>,
): readonly { readonly scope: string; readonly deltas: Readonly<Record<string, number>> }[] => {
  const store = { scope: 'store', deltas: { ...deltas, ...kindCounters(emailKindOf(touch), deltas) } };
  return touch.kind === 'flow'
    ? [
        store,
        {
          scope: `flow#${touch.flowId}`,
          deltas: {
            ...deltas,
            ...Object.fromEntries(Object.entries(deltas).map(([name, n]) => [stepCounter(touch.stepId, name), n])),
          },
        },
      ]
    : [
        store,
        { scope: `batch#${touch.batchId}`, deltas },
        ...(touch.campaignId ? [{ scope: campaignScope(touch.campaignId), deltas }] : []),
      ];
};

/** The kinds of email the store's counters also keep apart: a flow's, a campaign's, a bulk batch's without campaign. */
export const EMAIL_KINDS = ['flow', 'campaign', 'bulk'] as const;
export type EmailKind = (typeof EMAIL_KINDS)[number];

export const emailKindOf = (touch: Touch): EmailKind =>
  touch.kind === 'flow' ? 'flow' : touch.campaignId ? 'campaign' : 'bulk';

/** A store counter of one kind of email (`campaign#delivered`), kept beside the store's total of every kind. */
export const kindCounter = (kind: EmailKind, counter: string) => `${kind}#${counter}`;

const kindCounters = (kind: EmailKind, deltas: Readonly<Record<string, number>>) =>
  Object.fromEntries(
    Object.entries(deltas)
      .filter(([name]) => (FUNNEL as readonly string[]).includes(name) && name !== 'entered')
      .map(([name, n]) => [kindCounter(kind, name), n]),
  );

/** A campaign's counters (`GET /api/v1/campaigns/{id}`'s stats): its emails' SES events and influenced orders. */
export const campaignScope = (campaignId: string) => `campaign#${campaignId}`;

/** A step's counters among its flow's (`stepCounter` names), under their own names. */
export const stepCounts = (flowTotals: ReadonlyMap<string, number>, stepId: string): Map<string, number> => {
  const prefix = stepCounter(stepId, '');
  return new Map(
    [...flowTotals].filter(([name]) => name.startsWith(prefix)).map(([name, n]) => [name.slice(prefix.length), n]),
  );
};

/** Whether a click at `clickAt` influences an order paid at `paidAt` under a window of `days`. */
export const withinWindow = (clickAt: number, paidAt: number, days: number): boolean =>
  clickAt <= paidAt && paidAt - clickAt <= days * DAY_MS;

/**
 * How late a click may be reported and still influence an order paid after it: SES reports clicks seconds to minutes
 * after they happen, so an order paid in between is decided before its click is known, and reconsidered when it is.
 */
export const LATE_CLICK_MS = 24 * 3_600_000;

/** An order its payment found nothing to credit to: a click reported late may still influence it. */
export interface UnattributedOrder {
  readonly orderId: string;
  readonly paidAt: number;
  /** The store's influence window when the order was paid. */
  readonly windowDays: number;
  readonly currency: string;
  readonly amount: number;
}

/** Whether a click (by when it happened) influences an order that was paid unattributed, as seen at `now`. */
export const lateClickInfluences = (click: Touch, order: UnattributedOrder, now: number): boolean =>
  withinWindow(click.at, order.paidAt, order.windowDays) && now - order.paidAt <= LATE_CLICK_MS;

/** What one order earned, decided once at its payment. */
export type OrderAttribution =
  | { readonly kind: 'recovered'; readonly touch: Touch; readonly currency: string; readonly amount: number }
  | { readonly kind: 'influenced'; readonly touch: Touch; readonly currency: string; readonly amount: number }
  | { readonly kind: 'none' };

/** One day's counters of one scope, as stored. */
export interface DayCounts {
  readonly day: string;
  readonly counts: Readonly<Record<string, number>>;
}

/** One month's counters of one scope, as stored: the sums of its days, kept as they are added. */
export interface MonthCounts {
  readonly month: string;
  readonly counts: Readonly<Record<string, number>>;
}

/** A range's answer: totals and days, revenue per currency as decimal strings. */
export interface Stats {
  readonly from: string;
  readonly to: string;
  readonly entered: number;
  readonly emailed: number;
  readonly delivered: number;
  readonly opened: number;
  readonly clicked: number;
  readonly bounced: number;
  readonly unsubscribed: number;
  readonly recovered: { readonly orders: number; readonly revenue: Readonly<Record<string, string>> };
  readonly influenced: { readonly orders: number; readonly revenue: Readonly<Record<string, string>> };
}

const money = (n: number) => (Math.round(n * 100) / 100).toFixed(2);

/** Counter totals (`read-counts.ts`) in the answer's shape. */
export const summarize = (from: string, to: string, totals: ReadonlyMap<string, number>): Stats => {
  const revenue = (kind: RevenueKind) =>
    Object.fromEntries(
      [...totals]
        .filter(([name]) => name.startsWith(`${kind}Revenue_`))
        .map(([name, n]) => [name.slice(`${kind}Revenue_`.length), money(n)])
        .sort(([a], [b]) => (a as string).localeCompare(b as string)),
    );
  return {
    from,
    to,
    ...(Object.fromEntries(FUNNEL.map((name) => [name, totals.get(name) ?? 0])) as Record<FunnelCounter, number>),
    recovered: { orders: totals.get('recoveredOrders') ?? 0, revenue: revenue('recovered') },
    influenced: { orders: totals.get('influencedOrders') ?? 0, revenue: revenue('influenced') },
  };
};

/**
 * One addition of a counts message (`queued-counts.ts`): a store's to one scope's counters of one UTC day
 * (`YYYY-MM-DD`); the counters worker adds its month too.
 */
export type CountAddition = readonly [
  storeId: string,
  scope: string,
  day: string,
  deltas: Readonly<Record<string, number>>,
];

export interface CountsMessage {
  /** Claimed once by the counters worker. */
  readonly id: string;
  readonly counts: readonly CountAddition[];
}
