/**
 * The attribution use cases (rules in `model.ts` and docs/attribution.md): a flow email about a cart or checkout, a
 * click on any Storeflow email, an order's payment, and reading the counters.
 */
import type { Clock } from '#shared/domain/clock.ts';
import { possibleFlowId } from '#shared/domain/flows/flow-id.ts';
import type { Order } from '#shared/domain/orders/model.ts';
import { notFound, validationError } from '#shared/errors.ts';
import {
  amountOf,
  currencyOf,
  DEFAULT_INFLUENCE_WINDOW_DAYS,
  dayOf,
  EVENTS_SCOPE,
  type FunnelCounter,
  type OrderAttribution,
  revenueCounter,
  type Stats,
  scopesOf,
  summarize,
  type Touch,
  WEBHOOKS_SCOPE,
  withinWindow,
} from './model.ts';
import type { AttributionStore } from './ports.ts';
import { type CountsReader, countsReader } from './read-counts.ts';

/** Subjects a recovered order can name. */
const RECOVERABLE = new Set(['cart', 'checkout']);

/** A flow email was sent: counted, and remembered for its cart or checkout. */
export const flowEmailed = async (
  store: AttributionStore,
  storeId: string,
  subject: { type: string; id: string },
  touch: Extract<Touch, { kind: 'flow' }>,
): Promise<void> => {
  if (RECOVERABLE.has(subject.type)) await store.markSubject(storeId, subject, touch);
  await store.add(storeId, scopesOf(touch), dayOf(touch.at), { emailed: 1 });
};

/** A bulk batch's emails were sent. */
export const bulkEmailed = async (
  store: AttributionStore,
  storeId: string,
  batchId: string,
  count: number,
  at: number,
) => {
  if (count > 0) await store.add(storeId, scopesOf({ kind: 'bulk', batchId, at }), dayOf(at), { emailed: count });
};

/** What SES reported about an email, counted once per event (`eventId`: the SES event's, stable over redeliveries). */
export const emailEventCounted = async (
  store: AttributionStore,
  storeId: string,
  touch: Touch,
  counter: Exclude<FunnelCounter, 'entered' | 'emailed'>,
  eventId: string,
): Promise<void> => {
  if (await store.claimOnce(storeId, `${counter}#${eventId}`)) {
    await store.add(storeId, scopesOf(touch), dayOf(touch.at), { [counter]: 1 });
  }
};

/** A click on a Storeflow email: the contact's last click (influenced orders), and counted. */
export const emailClicked = async (
  store: AttributionStore,
  storeId: string,
  email: string,
  touch: Touch,
  eventId: string,
): Promise<void> => {
  await store.markClick(storeId, email.toLowerCase(), touch);
  await emailEventCounted(store, storeId, touch, 'clicked', eventId);
};

/** What an order earned, by the rules: recovered first, then influenced, else nothing. */
export const decideOrder = async (
  store: AttributionStore,
  order: Order,
  paidAt: number,
  windowDays: number,
): Promise<OrderAttribution> => {
  const currency = currencyOf(order.details.currency);
  const amount = amountOf(order.details.total_price);
  const subjects = [
    ...(order.cartToken ? [{ type: 'cart', id: order.cartToken }] : []),
    ...(order.checkoutToken ? [{ type: 'checkout', id: order.checkoutToken }] : []),
  ];
  const emailed = subjects.length > 0 ? await store.latestForSubjects(order.storeId, subjects) : undefined;
  if (emailed && emailed.at <= paidAt) return { kind: 'recovered', touch: emailed, currency, amount };
  const click = order.email ? await store.lastClick(order.storeId, order.email.toLowerCase()) : undefined;
  if (click && withinWindow(click.at, paidAt, windowDays))
    return { kind: 'influenced', touch: click, currency, amount };
  return { kind: 'none' };
};

export interface OrderPaidDeps {
  readonly attribution: AttributionStore;
  readonly clock: Clock;
  /** The store's influence window in days (its own setting, or the default). */
  readonly influenceWindowDays?: (storeId: string) => Promise<number | undefined>;
}

/** An order's payment completed: decided once, then counted on the day of the payment. */
export const orderPaid = async (deps: OrderPaidDeps, order: Order): Promise<OrderAttribution> => {
  const paidAt = deps.clock.now();
  const windowDays = (await deps.influenceWindowDays?.(order.storeId)) ?? DEFAULT_INFLUENCE_WINDOW_DAYS;
  const decided = await decideOrder(deps.attribution, order, paidAt, windowDays);
  if (!(await deps.attribution.claimOrder(order.storeId, order.id, decided))) return decided;
  if (decided.kind === 'none') return decided;
  await deps.attribution.add(order.storeId, scopesOf(decided.touch), dayOf(paidAt), {
    [`${decided.kind}Orders`]: 1,
    [revenueCounter(decided.kind, decided.currency)]: decided.amount,
  });
  return decided;
};

/** Longest range one request may read. */
export const MAX_STATS_DAYS = 366;

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** `from` and `to` (inclusive UTC days, `YYYY-MM-DD`); default the last 30 days up to today. */
export const parseStatsRange = (
  query: { from?: string | undefined; to?: string | undefined },
  now: number,
): { from: string; to: string } => {
  const to = query.to ?? dayOf(now);
  const from = query.from ?? dayOf(Date.parse(`${to}T00:00:00Z`) - 29 * 86_400_000);
  for (const [name, value] of [
    ['from', from],
    ['to', to],
  ] as const) {
    if (
      !DAY.test(value) ||
      Number.isNaN(Date.parse(`${value}T00:00:00Z`)) ||
      dayOf(Date.parse(`${value}T00:00:00Z`)) !== value
    ) {
      throw validationError(`${name} must be a date as YYYY-MM-DD`);
    }
  }
  const days = (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000 + 1;
  if (days < 1) throw validationError('to must not be before from');
  if (days > MAX_STATS_DAYS) throw validationError(`a range is at most ${MAX_STATS_DAYS} days`);
  return { from, to };
};

/** Counts without the range (a day's or a month's of the series). */
const countsOnly = (counts: Readonly<Record<string, number>>) => {
  const { from: _from, to: _to, ...rest } = summarize('', '', new Map(Object.entries(counts)));
  return rest;
};

/**
 * The counters of one scope over a range: totals, and a series of the days that have any (ranges up to 92 days) or
 * else of the months that have any (`read-counts.ts`).
 */
export const readStats = async (
  read: CountsReader,
  scope: string,
  range: { from: string; to: string },
): Promise<
  Stats &
    (
      | { days: (Omit<Stats, 'from' | 'to'> & { day: string })[] }
      | { months: (Omit<Stats, 'from' | 'to'> & { month: string })[] }
    )
> => {
  const { totals, series } = await read(scope, range);
  const stats = summarize(range.from, range.to, totals);
  return series.grain === 'day'
    ? { ...stats, days: series.points.map((d) => ({ day: d.day, ...countsOnly(d.counts) })) }
    : { ...stats, months: series.points.map((m) => ({ month: m.month, ...countsOnly(m.counts) })) };
};

export interface StatsDeps {
  readonly attribution: Pick<AttributionStore, 'days' | 'months' | 'monthsKept'>;
  readonly flows: {
    get(storeId: string, flowId: string): Promise<{ steps: readonly { id: string; type: string }[] } | undefined>;
  };
  readonly clock: Clock;
}

/** `GET /api/v1/stats?from&to`: the store's emails, clicks, recovered and influenced orders. */
export const storeStats = async (
  deps: StatsDeps,
  storeId: string,
  query: { from?: string | undefined; to?: string | undefined },
) => readStats(countsReader(deps.attribution, storeId), 'store', parseStatsRange(query, deps.clock.now()));

/** `GET /api/v1/flows/{flowId}/stats?from&to`: one flow's, with each of its email steps' totals. */
export const flowStats = async (
  deps: StatsDeps,
  storeId: string,
  flowId: string,
  query: { from?: string | undefined; to?: string | undefined },
) => {
  const range = parseStatsRange(query, deps.clock.now());
  const flow = possibleFlowId(flowId) ? await deps.flows.get(storeId, flowId) : undefined;
  if (!flow) throw notFound('Flow not found');
  const read = countsReader(deps.attribution, storeId);
  const [whole, steps] = await Promise.all([
    readStats(read, `flow#${flowId}`, range),
    Promise.all(
      flow.steps
        .filter((step) => step.type === 'email')
        .map(async (step) => {
          const {
            from: _from,
            to: _to,
            ...totals
          } = summarize(range.from, range.to, (await read(`step#${flowId}#${step.id}`, range)).totals);
          return { stepId: step.id, ...totals };
        }),
    ),
  ]);
  return { flowId, ...whole, steps };
};

/** What rebuilding a store's month counters needs (`npm run admin -- store rollup-stats`). */
export interface RollupDeps {
  readonly attribution: Pick<AttributionStore, 'rebuildMonths'>;
  readonly stores: { get(storeId: string): Promise<unknown> };
  readonly flows: {
    list(storeId: string): Promise<readonly { id: string; steps: readonly { id: string; type: string }[] }[]>;
  };
}

/**
 * Rewrites a store's month counters from its days, for every scope the stats and the console read (the store, its
 * events and webhook deliveries, each flow and its email steps), then reads its long ranges from months: the upgrade
 * step for stores counted before months were kept. Counts added to a scope while it is rebuilt (milliseconds) may be
 * missed in its month: run it again when the store is quiet to repair them. Answers the scopes rebuilt.
 */
export const rollUpStoreStats = async (deps: RollupDeps, storeId: string): Promise<readonly string[]> => {
  if (!(await deps.stores.get(storeId))) throw new Error(`No store ${storeId}`);
  const flows = await deps.flows.list(storeId);
  const scopes = [
    'store',
    EVENTS_SCOPE,
    WEBHOOKS_SCOPE,
    ...flows.flatMap((flow) => [
      `flow#${flow.id}`,
      ...flow.steps.filter((step) => step.type === 'email').map((step) => `step#${flow.id}#${step.id}`),
    ]),
  ];
  await deps.attribution.rebuildMonths(storeId, scopes);
  return scopes;
};
