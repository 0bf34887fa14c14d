/**
 * The attribution use cases (rules in `model.ts` and docs/attribution.md): a flow email about a cart or checkout, a
 * click on any Storeflow email, an order's payment, and reading the counters.
 */
import type { Clock } from '#shared/domain/clock.ts';
import type { Flow } from '#shared/domain/flows/flow.ts';
import { possibleFlowId } from '#shared/domain/flows/flow-id.ts';
import { flatSteps } from '#shared/domain/flows/split.ts';
import type { Order } from '#shared/domain/orders/model.ts';
import { notFound, validationError } from '#shared/errors.ts';
import { measureOrder } from './experiment.ts';
import { experimentStats } from './experiment-stats.ts';
import {
  amountOf,
  countsFor,
  currencyOf,
  DEFAULT_INFLUENCE_WINDOW_DAYS,
  dayOf,
  type FunnelCounter,
  lateClickInfluences,
  type OrderAttribution,
  revenueCounter,
  type Stats,
  stepCounter,
  stepCounts,
  summarize,
  type Touch,
  type UnattributedOrder,
  withinWindow,
} from './model.ts';
import type { AttributionStore } from './ports.ts';
import { type CountsReader, countsReader, type RangeCounts } from './read-counts.ts';

/** Adds `deltas` to the counters an email of `touch` counts under (`countsFor`). */
const count = async (
  store: Pick<AttributionStore, 'add'>,
  storeId: string,
  touch: Touch,
  day: string,
  deltas: Readonly<Record<string, number>>,
) => {
  await Promise.all(countsFor(touch, deltas).map((c) => store.add(storeId, [c.scope], day, c.deltas)));
};

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
  await count(store, storeId, touch, dayOf(touch.at), { emailed: 1 });
};

/** A bulk batch's emails were sent (a campaign's when it names one). */
export const bulkEmailed = async (
  store: Pick<AttributionStore, 'add'>,
  storeId: string,
  batch: { readonly batchId: string; readonly campaignId?: string | undefined },
  emails: number,
  at: number,
) => {
  const touch: Touch = {
    kind: 'bulk',
    batchId: batch.batchId,
    ...(batch.campaignId ? { campaignId: batch.campaignId } : {}),
    at,
  };
  if (emails > 0) await count(store, storeId, touch, dayOf(at), { emailed: emails });
};

/** What SES reported about an email, counted once per event (`eventId`: the SES event's, stable over redeliveries). */
export const emailEventCounted = async (
  store: AttributionStore,
  storeId: string,
  touch: Touch,
  counter: Exclude<FunnelCounter, 'entered' | 'emailed'>,
  eventId: string,
): Promise<void> => {
  if (await store.claimOnce(storeId, `${counter}#${eventId}`)) await emailEventClaimed(store, storeId, touch, counter);
};

/**
 * What SES reported about an email, counted by a handling that made sure another way that it is the only one to
 * count it (a delivery noted once on the email's record, `ContactEmails.noteDelivered`).
 */
export const emailEventClaimed = async (
  store: AttributionStore,
  storeId: string,
  touch: Touch,
  counter: Exclude<FunnelCounter, 'entered' | 'emailed'>,
): Promise<void> => {
  await count(store, storeId, touch, dayOf(touch.at), { [counter]: 1 });
};

/**
 * A click on a Storeflow email: the contact's last click (influenced orders), and counted. A click reported after an
 * order it happened before was paid influences that order now (`reconsiderLate`).
 */
export const emailClicked = async (
  store: AttributionStore,
  storeId: string,
  email: string,
  touch: Touch,
  eventId: string,
  now: number,
): Promise<void> => {
  await store.markClick(storeId, email.toLowerCase(), touch);
  await reconsiderLate(store, storeId, email, touch, now);
  await emailEventCounted(store, storeId, touch, 'clicked', eventId);
};

/**
 * Credits the contact's orders paid unattributed that `click` influences, each once (`reconsiderOrder` changes only
 * an order decided `none`), counted on the day of its payment. Both sides call it: the click after marking itself
 * the last click, the payment after marking its order unattributed; whichever marks last sees the other's mark.
 */
const reconsiderLate = async (
  store: AttributionStore,
  storeId: string,
  email: string,
  click: Touch,
  now: number,
  orders?: readonly UnattributedOrder[],
): Promise<void> => {
  for (const order of orders ?? (await store.unattributedOrders(storeId, email.toLowerCase()))) {
    if (!lateClickInfluences(click, order, now)) continue;
    const { currency, amount } = order;
    if (!(await store.reconsiderOrder(storeId, order.orderId, { kind: 'influenced', touch: click, currency, amount })))
      continue;
    await count(store, storeId, click, dayOf(order.paidAt), {
      influencedOrders: 1,
      [revenueCounter('influenced', currency)]: amount,
    });
  }
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
  // The A/B groups' measure (experiment.ts), whatever the emails earned: the holdout never has any.
  await measureOrder(deps.attribution, order, paidAt, windowDays);
  if (decided.kind === 'none') {
    if (order.email) await markUnattributed(deps.attribution, order, order.email, { paidAt, windowDays });
    return decided;
  }
  await count(deps.attribution, order.storeId, decided.touch, dayOf(paidAt), {
    [`${decided.kind}Orders`]: 1,
    [revenueCounter(decided.kind, decided.currency)]: decided.amount,
  });
  return decided;
};

/**
 * Remembers an order paid with nothing to credit, then looks once more for a click: one marked between the decision
 * and this mark would otherwise see no order to influence (`reconsiderLate`).
 */
const markUnattributed = async (
  store: AttributionStore,
  order: Order,
  address: string,
  paid: { readonly paidAt: number; readonly windowDays: number },
) => {
  const email = address.toLowerCase();
  const mark: UnattributedOrder = {
    orderId: order.id,
    paidAt: paid.paidAt,
    windowDays: paid.windowDays,
    currency: currencyOf(order.details.currency),
    amount: amountOf(order.details.total_price),
  };
  await store.markUnattributed(order.storeId, email, mark);
  const click = await store.lastClick(order.storeId, email);
  if (click) await reconsiderLate(store, order.storeId, email, click, paid.paidAt, [mark]);
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

/** Counts without the range (a day's or a month's of the series, a step's). */
const countsOnly = (counts: Readonly<Record<string, number>> | ReadonlyMap<string, number>) => {
  const {
    from: _from,
    to: _to,
    ...rest
  } = summarize('', '', counts instanceof Map ? counts : new Map(Object.entries(counts)));
  return rest;
};

type StatsWithSeries = Stats &
  (
    | { days: (Omit<Stats, 'from' | 'to'> & { day: string })[] }
    | { months: (Omit<Stats, 'from' | 'to'> & { month: string })[] }
  );

/** A range's counters as the API answers them: totals, and the series of days (ranges up to 92 days) or months. */
const withSeries = (range: { from: string; to: string }, { totals, series }: RangeCounts): StatsWithSeries => {
  const stats = summarize(range.from, range.to, totals);
  return series.grain === 'day'
    ? { ...stats, days: series.points.map((d) => ({ day: d.day, ...countsOnly(d.counts) })) }
    : { ...stats, months: series.points.map((m) => ({ month: m.month, ...countsOnly(m.counts) })) };
};

/** The counters of one scope over a range (`withSeries`). */
export const readStats = async (
  read: CountsReader,
  scope: string,
  range: { from: string; to: string },
): Promise<StatsWithSeries> => withSeries(range, await read(scope, range));

/** One flow step's counters over a range (kept on its flow's items). */
export const readStepStats = async (
  read: CountsReader,
  flowId: string,
  stepId: string,
  range: { from: string; to: string },
): Promise<Stats> => summarize(range.from, range.to, stepCounts((await read(`flow#${flowId}`, range)).totals, stepId));

export interface StatsDeps {
  readonly attribution: Pick<AttributionStore, 'days' | 'periods' | 'monthsKept'>;
  readonly flows: {
    get(storeId: string, flowId: string): Promise<Pick<Flow, 'id' | 'steps' | 'holdoutPercent'> | undefined>;
  };
  readonly clock: Clock;
}

/** `GET /api/v1/stats?from&to`: the store's emails, clicks, recovered and influenced orders. */
export const storeStats = async (
  deps: StatsDeps,
  storeId: string,
  query: { from?: string | undefined; to?: string | undefined },
) => {
  const now = deps.clock.now();
  return readStats(countsReader(deps.attribution, storeId, dayOf(now)), 'store', parseStatsRange(query, now));
};

/** `GET /api/v1/flows/{flowId}/stats?from&to`: one flow's, with each of its email steps' totals. */
export const flowStats = async (
  deps: StatsDeps,
  storeId: string,
  flowId: string,
  query: { from?: string | undefined; to?: string | undefined },
) => {
  const now = deps.clock.now();
  const range = parseStatsRange(query, now);
  if (!possibleFlowId(flowId)) throw notFound('Flow not found');
  // The flow's counters hold its steps' (`stepCounter`): one read of counters, beside the flow's own.
  const [flow, counts] = await Promise.all([
    deps.flows.get(storeId, flowId),
    countsReader(deps.attribution, storeId, dayOf(now))(`flow#${flowId}`, range),
  ]);
  if (!flow) throw notFound('Flow not found');
  const steps = flatSteps(flow.steps)
    .filter((step) => step.type === 'email')
    .map((step) => ({ stepId: step.id, ...countsOnly(stepCounts(counts.totals, step.id)) }));
  const experiment = experimentStats(flow, counts.totals);
  return { flowId, ...withSeries(range, counts), steps, ...(experiment ? { experiment } : {}) };
};

/** What rebuilding a store's month counters needs (`npm run admin -- store rollup-stats`). */
export interface RollupDeps {
  readonly attribution: Pick<AttributionStore, 'days' | 'add' | 'deleteScope' | 'rebuildMonths'>;
  readonly stores: { get(storeId: string): Promise<unknown> };
  readonly flows: {
    list(storeId: string): Promise<readonly Pick<Flow, 'id' | 'steps'>[]>;
  };
}

/**
 * The upgrade step for stores counted before this version (docs/deploy.md): each email step's counters, once a scope
 * of their own (`step#<flowId>#<stepId>`), are added to their flow's under their `stepCounter` names and removed;
 * then every scope kept per month that the stats and the console read (the store, each flow) has its month counters
 * rewritten from its days, and the store's long ranges read months from then on.
 *
 * Counts added to a scope while its months are rebuilt (milliseconds) may be missed in its month: running it again
 * when the store is quiet repairs that. A run stopped between adding a step's counters to its flow and removing them
 * would add them twice if run again: it logs each step it moves. Answers the scopes rebuilt and the steps moved.
 */
export const rollUpStoreStats = async (
  deps: RollupDeps,
  storeId: string,
  log: (line: string) => void = () => {},
): Promise<{ scopes: readonly string[]; stepsMoved: number }> => {
  if (!(await deps.stores.get(storeId))) throw new Error(`No store ${storeId}`);
  const flows = await deps.flows.list(storeId);
  let stepsMoved = 0;
  for (const flow of flows) {
    for (const step of flatSteps(flow.steps).filter((s) => s.type === 'email')) {
      const legacy = `step#${flow.id}#${step.id}`;
      const days = await deps.attribution.days(storeId, legacy, '0000-01-01', '9999-12-31');
      if (days.length === 0) continue;
      log(`moving ${days.length} days of ${legacy} to flow#${flow.id}`);
      for (const { day, counts } of days) {
        const asStep = Object.fromEntries(Object.entries(counts).map(([name, n]) => [stepCounter(step.id, name), n]));
        await deps.attribution.add(storeId, [`flow#${flow.id}`], day, asStep);
      }
      await deps.attribution.deleteScope(storeId, legacy);
      stepsMoved++;
    }
  }
  const scopes = ['store', ...flows.map((flow) => `flow#${flow.id}`)];
  await deps.attribution.rebuildMonths(storeId, scopes);
  return { scopes, stepsMoved };
};
