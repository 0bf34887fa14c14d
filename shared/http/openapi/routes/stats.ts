/** Attribution stats on `{base_url}`, `{code, data}` answers (docs/attribution.md): the counters of `readStats`. */
import * as v from 'valibot';
import { MAX_STATS_DAYS } from '#shared/domain/attribution/attribute.ts';
import { DEFAULT_INFLUENCE_WINDOW_DAYS } from '#shared/domain/attribution/model.ts';
import { DAY_SERIES_MAX_DAYS } from '#shared/domain/attribution/read-counts.ts';
import { ref } from '#shared/http/openapi/components.ts';
import { route } from '#shared/http/openapi/registry.ts';
import { DATA } from '#shared/http/openapi/shapes.ts';
import { webhooksReply } from '#shared/http/responses.ts';
import { FlowPath, parametersOf, StatsQuery } from '#shared/http/route-inputs.ts';
import { LIMITS } from '#shared/limits.ts';

const pace = `At most ${LIMITS.flowManagementPerSecond} calls per second per store (shared with the flows API).`;
const count = (what: string) => v.pipe(v.number(), v.integer(), v.description(what));
const Revenue = v.pipe(
  v.record(v.string(), v.string()),
  v.description('Per ISO 4217 currency (`XXX`: orders naming none), the sum of `total_price` as a decimal string'),
);
const Orders = (what: string) => v.pipe(v.object({ orders: count('Orders'), revenue: Revenue }), v.description(what));

const counts = {
  entered: count('Runs started (flows and their totals; 0 for a step or the store)'),
  emailed: count("Emails sent: a flow's or step's by it; the store's of every kind (flow, campaign and bulk)"),
  delivered: count('Deliveries SES reported'),
  opened: count('First opens'),
  clicked: count('Clicks (each SES click event once)'),
  bounced: count('Bounces, permanent or not, and rejects'),
  unsubscribed: count('Complaints and unsubscribes from the email'),
  recovered: Orders('Orders paid with the cart or checkout token of a cart or checkout a flow emailed about'),
  influenced: Orders(
    `Other orders paid within the store's window (default ${DEFAULT_INFLUENCE_WINDOW_DAYS} days) after the contact's last click`,
  ),
};
const Day = v.object({ day: v.pipe(v.string(), v.description('YYYY-MM-DD, UTC')), ...counts });
const Month = v.object({ month: v.pipe(v.string(), v.description('YYYY-MM, UTC')), ...counts });
const range = {
  from: v.pipe(v.string(), v.description('First day, YYYY-MM-DD')),
  to: v.pipe(v.string(), v.description('Last day, YYYY-MM-DD, inclusive')),
  ...counts,
  days: v.pipe(
    v.optional(v.array(Day)),
    v.description(
      `Ranges of up to ${DAY_SERIES_MAX_DAYS} days: the days of the range that have any count, in order (absent for longer ranges)`,
    ),
  ),
  months: v.pipe(
    v.optional(v.array(Month)),
    v.description(
      `Ranges longer than ${DAY_SERIES_MAX_DAYS} days: the months that have any count within the range, in order; ` +
        'the first and last count only their days within the range (absent for shorter ranges)',
    ),
  ),
};
const decimal = (what: string) => v.pipe(v.nullable(v.string()), v.description(what));
const Experiment = v.pipe(
  v.object({
    holdoutPercent: count("The flow's holdout percent now"),
    groups: v.array(
      v.object({
        group: v.pipe(
          v.string(),
          v.description('`holdout`, a branch id of the split, or `treated` (a holdout without a split)'),
        ),
        kind: v.picklist(['holdout', 'branch', 'treated']),
        percent: v.pipe(v.number(), v.description('Share of entering runs, in percent, as the flow is defined now')),
        entered: count('Runs of the group entered (its recipients)'),
        emailed: count("Emails of the group's steps"),
        delivered: count('Deliveries of those emails'),
        opened: count('First opens of those emails'),
        clicked: count('Clicks on those emails'),
        orders: count('Orders its contacts paid within the window after their entry, mailed or not'),
        revenue: Revenue,
        revenuePerRecipient: v.pipe(
          v.record(v.string(), v.nullable(v.string())),
          v.description('Per currency: revenue / entered, four decimals'),
        ),
      }),
    ),
    comparisons: v.pipe(
      v.array(
        v.object({
          group: v.string(),
          against: v.pipe(v.string(), v.description('The holdout, or without one the first branch')),
          currency: v.string(),
          difference: decimal('Revenue per recipient of `group` minus that of `against`; null below 2 runs in a group'),
          ci95: v.nullable(v.object({ low: v.string(), high: v.string() })),
          significant: v.pipe(v.nullable(v.boolean()), v.description('Whether the 95 % interval excludes 0')),
        }),
      ),
      v.description(
        "Welch's difference of means with a normal-approximation 95 % interval, per currency (docs/attribution.md)",
      ),
    ),
  }),
  v.description(
    'Flows with a split or a holdout: each A/B group measured by the same rule (docs/attribution.md "A/B groups")',
  ),
);
const StoreStats = v.object(range);
const FlowStats = v.object({
  flowId: v.string(),
  ...range,
  steps: v.pipe(
    v.array(v.object({ stepId: v.string(), ...counts })),
    v.description("Each of the flow's email steps over the range: the step of the last email is credited"),
  ),
  experiment: v.optional(Experiment),
});
const validation = `from must be a date as YYYY-MM-DD (ranges are at most ${MAX_STATS_DAYS} days)`;

export const STATS_ROUTES = {
  stats: route({
    tag: 'Flows',
    summary: "The store's emails and the revenue they earned",
    description:
      'Counters kept as events arrive (no scan at read time), per UTC day: emails sent, clicks, and orders credited ' +
      'to Storeflow in two kinds never mixed: recovered (deterministic, by cart or checkout token) and influenced ' +
      `(a click within the window). ${pace}`,
    api: 'webhooks',
    query: parametersOf(StatsQuery),
    ok: webhooksReply.ok(DATA),
    data: ref('StoreStats', StoreStats),
    errors: ['validation', 'rate_limited'],
    errorMessages: { validation },
  }),
  'flow-stats': route({
    tag: 'Flows',
    summary: "One flow's emails and the revenue they earned",
    description: `The store's counters for one flow, with each step's totals. Another store's flow answers like a missing one. ${pace}`,
    api: 'webhooks',
    path: parametersOf(FlowPath),
    query: parametersOf(StatsQuery),
    ok: webhooksReply.ok(DATA),
    data: ref('FlowStats', FlowStats),
    errors: ['validation', 'not_found', 'rate_limited'],
    errorMessages: { validation, not_found: 'Flow not found' },
  }),
};
