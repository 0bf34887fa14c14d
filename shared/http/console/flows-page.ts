/** Every flow of the store with its state and funnel over a range of days. */
import type { FlowsOverview } from '#shared/domain/console/overview.ts';
import { escapeHtml } from '#shared/http/back-office-pages.ts';
import type { Reply } from '#shared/http/reply.ts';
import { count, page, revenue, storeBase } from './layout.ts';

/** `GET /back-office/stores/{storeId}/flows?from&to`: each flow, its state and its funnel, one row per flow. */
export const flowsPage = (store: { storeId: string; name: string }, view: FlowsOverview): Reply => {
  const storeUrl = storeBase(store.storeId);
  const base = storeUrl;
  const flowRows = view.flows
    .map(
      (flow) => `<tr>
<th scope="row"><a href="${escapeHtml(`${base}/flows/${encodeURIComponent(flow.id)}`)}">${escapeHtml(flow.name)}</a><br><span class="muted">${escapeHtml(flow.trigger)}</span></th>
<td>${flow.enabled ? 'Enabled' : 'Disabled'}</td>
<td class="n">${count(flow.stats.entered)}</td>
<td class="n">${count(flow.stats.emailed)}</td>
<td class="n">${count(flow.stats.delivered)}</td>
<td class="n">${count(flow.stats.opened)}</td>
<td class="n">${count(flow.stats.clicked)}</td>
<td class="n">${count(flow.stats.recovered.orders)}</td>
<td class="n">${revenue(flow.stats.recovered.revenue)}</td>
<td class="n">${count(flow.stats.influenced.orders)}</td>
</tr>`,
    )
    .join('\n');
  const flows =
    view.flows.length > 0
      ? `<div class="scroll"><table id="flows">
<caption>Each flow's runs and emails from ${escapeHtml(view.from)} to ${escapeHtml(view.to)}</caption>
<thead><tr><th scope="col">Flow</th><th scope="col">State</th><th scope="col" class="n">Entered</th>
<th scope="col" class="n">Emailed</th><th scope="col" class="n">Delivered</th><th scope="col" class="n">Opened</th>
<th scope="col" class="n">Clicked</th><th scope="col" class="n">Recovered orders</th>
<th scope="col" class="n">Recovered revenue</th><th scope="col" class="n">Influenced orders</th></tr></thead>
<tbody>
${flowRows}
</tbody>
</table></div>`
      : '<p id="flows">This store has no flow yet.</p>';
  const body = `<nav aria-label="Breadcrumb"><a href="/back-office">Back office</a> › <a href="${escapeHtml(storeUrl)}">${escapeHtml(store.name)}</a> › Flows</nav>
<h1>Flows</h1>
<p><a href="${escapeHtml(`${storeUrl}/new-flow`)}">New flow from a preset</a></p>
<form class="range" method="get" action="${escapeHtml(`${storeUrl}/flows`)}">
<label for="from">From<input type="date" id="from" name="from" value="${escapeHtml(view.from)}" required></label>
<label for="to">To<input type="date" id="to" name="to" value="${escapeHtml(view.to)}" required></label>
<button type="submit">Show</button>
</form>
<p class="muted">Days are UTC; counts are kept as events arrive.</p>
${flows}`;
  return page(`Flows · ${store.name}`, body);
};
