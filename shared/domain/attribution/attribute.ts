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
  type FunnelCounter,
  type OrderAttribution,
  revenueCounter,
  type Stats,
  scopesOf,
  summarize,
  type Touch,
  withinWindow,
} from './model.ts';
import type { AttributionStore } from './ports.ts';

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

/** The counters of one scope over a range, with the days that have any. */
export const readStats = async (
  store: Pick<AttributionStore, 'days'>,
  storeId: string,
  scope: string,
  range: { from: string; to: string },
): Promise<Stats & { days: (Omit<Stats, 'from' | 'to'> & { day: string })[] }> => {
  const days = await store.days(storeId, scope, range.from, range.to);
  return {
    ...summarize(range.from, range.to, days),
    days: days.map((d) => {
      const { from: _from, to: _to, ...counts } = summarize(d.day, d.day, [d]);
      return { day: d.day, ...counts };
    }),
  };
};

export interface StatsDeps {
  readonly attribution: Pick<AttributionStore, 'days'>;
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
) => readStats(deps.attribution, storeId, 'store', parseStatsRange(query, deps.clock.now()));

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
  const [whole, steps] = await Promise.all([
    readStats(deps.attribution, storeId, `flow#${flowId}`, range),
    Promise.all(
      flow.steps
        .filter((step) => step.type === 'email')
        .map(async (step) => {
          const {
            from: _from,
            to: _to,
            days: _days,
            ...totals
          } = await readStats(deps.attribution, storeId, `step#${flowId}#${step.id}`, range);
          return { stepId: step.id, ...totals };
        }),
    ),
  ]);
  return { flowId, ...whole, steps };
};
