/** The store's sending domains with the DNS records to publish. */
import type { SenderView } from '#shared/domain/email/sender.ts';
import { escapeHtml, htmlDocument, PAGE_HEADERS } from '#shared/http/back-office-pages.ts';
import type { Reply } from '#shared/http/reply.ts';
import { STYLE } from './layout.ts';

/** `GET|POST /back-office/stores/{storeId}/senders`: sending domains, their DNS records and state; add, check again. */
export const sendersPage = (
  store: { storeId: string; name: string },
  senders: readonly SenderView[],
  outcome?: { done: string } | { refused: string },
): Reply => {
  const storeBase = `/back-office/stores/${encodeURIComponent(store.storeId)}`;
  const action = `${storeBase}/senders`;
  const rows = senders
    .map((sender) => {
      const records = sender.dnsRecords
        .map(
          (r) =>
            `<li><code>${escapeHtml(r.name)}</code> ${escapeHtml(r.type)} <code>${escapeHtml(r.value)}</code></li>`,
        )
        .join('');
      return `<tr data-domain="${escapeHtml(sender.domain)}"><th scope="row">${escapeHtml(sender.domain)}</th><td data-status="${escapeHtml(sender.status)}">${escapeHtml(sender.status)}</td><td>${records ? `<ul class="records">${records}</ul>` : '—'}</td><td><form method="post" action="${escapeHtml(action)}"><input type="hidden" name="action" value="check"><input type="hidden" name="domain" value="${escapeHtml(sender.domain)}"><button type="submit">Check now<span class="visually-hidden"> ${escapeHtml(sender.domain)}</span></button></form></td></tr>`;
    })
    .join('\n');
  const table = senders.length
    ? `<div class="scroll"><table id="senders"><caption>Publish each domain's three CNAME records; it sends once verified</caption>
<thead><tr><th scope="col">Domain</th><th scope="col">State</th><th scope="col">DNS records (name, type, value)</th><th scope="col">Action</th></tr></thead>
<tbody>
${rows}
</tbody>
</table></div>`
    : '<p id="senders">No sending domain yet: add one below.</p>';
  const message =
    outcome === undefined
      ? ''
      : 'refused' in outcome
        ? `<p role="alert" id="form-error">${escapeHtml(outcome.refused)}</p>`
        : `<p role="status" id="notice">${escapeHtml(outcome.done)}</p>`;
  const body = `<nav aria-label="Breadcrumb"><a href="/back-office">Back office</a> › <a href="${escapeHtml(storeBase)}">${escapeHtml(store.name)}</a> › Senders</nav>
<h1>Sending domains</h1>
${message}
${table}
<h2 id="add-heading">Add a domain</h2>
<form method="post" action="${escapeHtml(action)}" class="range">
<input type="hidden" name="action" value="add">
<label for="domain">Domain<input type="text" id="domain" name="domain" required placeholder="mail.shop.example"></label>
<button type="submit">Add</button>
</form>`;
  return {
    statusCode: outcome && 'refused' in outcome ? 400 : 200,
    headers: PAGE_HEADERS,
    body: htmlDocument(`Senders · ${store.name} · Storeflow`, STYLE, body),
  };
};
