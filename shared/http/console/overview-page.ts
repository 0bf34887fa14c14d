/** The store's overview: its emails, earned orders, events applied and webhook health over a range of days. */
import type { Stats } from '#shared/domain/attribution/model.ts';
import type { StoreOverview } from '#shared/domain/console/overview.ts';
import { escapeHtml } from '#shared/http/back-office-pages.ts';
import type { Reply } from '#shared/http/reply.ts';
import { cards, count, page, rate, revenue } from './layout.ts';

const FUNNEL_CARDS: readonly [keyof Stats, string][] = [
  ['emailed', 'Sent'],
  ['delivered', 'Delivered'],
  ['opened', 'Opened'],
  ['clicked', 'Clicked'],
  ['bounced', 'Bounced'],
  ['unsubscribed', 'Unsubscribed'],
];

/** Events applied by kind, and webhook delivery health. */
const activitySection = ({ activity }: StoreOverview) => {
  const rows = activity.events
    .map((e) => `<tr><th scope="row"><code>${escapeHtml(e.kind)}</code></th><td class="n">${count(e.count)}</td></tr>`)
    .join('\n');
  const events =
    activity.events.length > 0
      ? `<table id="events"><caption>Events applied, by endpoint</caption>
<thead><tr><th scope="col">Endpoint</th><th scope="col" class="n">Events</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>`
      : '<p id="events">No event was applied in this range.</p>';
  const { webhooks } = activity;
  return `<h2 id="events-heading">Events</h2>
${cards('event-totals', [
  ['applied', 'Applied', count(activity.eventsApplied)],
  ['failed', 'Failed', count(activity.eventsFailed)],
])}
${events}
<h2 id="webhooks-heading">Webhook deliveries</h2>
${cards('webhooks', [
  ['attempts', 'Attempts', count(webhooks.attempts)],
  ['delivered', 'Delivered', count(webhooks.delivered)],
  ['retried', 'Failed, retried', count(webhooks.retried)],
  ['failed', 'Failed for good', count(webhooks.failed)],
  ['success-rate', 'Success rate', rate(webhooks.delivered, webhooks.attempts)],
])}`;
};

/** `GET /back-office/stores/{storeId}`: the store's emails, earned orders, events and webhooks over a range of days. */
export const storeOverviewPage = (store: { storeId: string; name: string }, overview: StoreOverview): Reply => {
  const { totals } = overview;
  const base = `/back-office/stores/${encodeURIComponent(store.storeId)}`;
  const range = `?from=${encodeURIComponent(overview.from)}&to=${encodeURIComponent(overview.to)}`;
  const body = `<nav aria-label="Breadcrumb"><a href="/back-office">Back office</a> › ${escapeHtml(store.name)}</nav>
<h1>${escapeHtml(store.name)}</h1>
<p><a href="${escapeHtml(`${base}/flows`)}">Flows</a> · <a href="${escapeHtml(`${base}/contacts`)}">Find a contact</a> · <a href="${escapeHtml(`${base}/new-flow`)}">New flow from a preset</a> · <a href="${escapeHtml(`${base}/webhooks`)}">Webhooks</a> · <a href="${escapeHtml(`${base}/senders`)}">Sending domains</a> · <a href="${escapeHtml(`${base}/imports`)}">Imports</a> · <a href="${escapeHtml(`${base}/sending`)}">Bulk sending</a> · <a href="${escapeHtml(`${base}/segments`)}">Segments</a> · <a href="${escapeHtml(`${base}/campaigns`)}">Campaigns</a></p>
<form class="range" method="get" action="${escapeHtml(base)}">
<label for="from">From<input type="date" id="from" name="from" value="${escapeHtml(overview.from)}" required></label>
<label for="to">To<input type="date" id="to" name="to" value="${escapeHtml(overview.to)}" required></label>
<button type="submit">Show</button>
</form>
<p class="muted">Days are UTC; counts are kept as events arrive (docs/attribution.md).</p>
<h2 id="emails-heading">Emails</h2>
${cards(
  'emails',
  FUNNEL_CARDS.map(([key, label]) => [key, label, count(totals[key] as number)] as const),
)}
<p class="muted" id="rates">Delivered ${rate(totals.delivered, totals.emailed)} of sent · opened ${rate(totals.opened, totals.delivered)} and clicked ${rate(totals.clicked, totals.delivered)} of delivered</p>
<h2 id="orders-heading">Orders the emails earned</h2>
${cards('orders', [
  ['recovered-orders', 'Recovered orders', count(totals.recovered.orders)],
  ['recovered-revenue', 'Recovered revenue', revenue(totals.recovered.revenue)],
  ['influenced-orders', 'Influenced orders', count(totals.influenced.orders)],
  ['influenced-revenue', 'Influenced revenue', revenue(totals.influenced.revenue)],
])}
<p class="muted">Recovered: paid with the cart or checkout a flow emailed about. Influenced: paid by the same contact within the store's window after a click, when not recovered. Never both.</p>
<p id="flows"><a href="${escapeHtml(`${base}/flows${range}`)}">Each flow's funnel over these days</a></p>
${activitySection(overview)}`;
  return page(store.name, body);
};
