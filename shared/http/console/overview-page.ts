/** The store's overview: its emails, earned orders, events applied and webhook health over a range of days. */
import type { EmailKind } from '#shared/domain/attribution/model.ts';
import type { EmailFunnel, StoreOverview } from '#shared/domain/console/overview.ts';
import { escapeHtml } from '#shared/http/back-office-pages.ts';
import type { Reply } from '#shared/http/reply.ts';
import { cards, count, page, rate, revenue } from './layout.ts';

const KIND_LABELS: readonly [EmailKind, string][] = [
  ['flow', 'Flow emails'],
  ['campaign', 'Campaign emails'],
  ['bulk', 'Bulk emails'],
];

/** One kind's row: its counts, and each rate over that kind's own sent. */
const funnelRow = (id: string, label: string, f: EmailFunnel, tag: 'td' | 'th' = 'td') => {
  const n = (v: number, r?: string) =>
    `<${tag} class="n">${count(v)}${r ? ` <span class="muted">(${r})</span>` : ''}</${tag}>`;
  return `<tr id="emails-${id}"><th scope="row">${label}</th>${n(f.sent)}${n(f.delivered, rate(f.delivered, f.sent))}${n(f.opened, rate(f.opened, f.sent))}${n(f.clicked, rate(f.clicked, f.sent))}${n(f.bounced, rate(f.bounced, f.sent))}${n(f.unsubscribed)}</tr>`;
};

/** The store's emails by kind and their total, each rate over its own row's sent. */
const emailsTable = ({ emails }: StoreOverview) => `<table id="emails">
<caption>Emails by kind (rates are of that row's sent)</caption>
<thead><tr><th scope="col">Kind</th><th scope="col" class="n">Sent</th><th scope="col" class="n">Delivered</th><th scope="col" class="n">Opened</th><th scope="col" class="n">Clicked</th><th scope="col" class="n">Bounced</th><th scope="col" class="n">Unsubscribed</th></tr></thead>
<tbody>
${KIND_LABELS.map(([kind, label]) => funnelRow(kind, label, emails.kinds[kind])).join('\n')}
</tbody>
<tfoot>
${funnelRow('total', 'All emails', emails.total)}
</tfoot>
</table>`;

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
<p class="muted">Days are UTC; counts are kept as events arrive.</p>
<h2 id="emails-heading">Emails</h2>
${emailsTable(overview)}
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
