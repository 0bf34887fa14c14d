/** Webhook subscriptions, their latest deliveries with each attempt, and re-sending. */
import { DELIVERIES_SHOWN, type WebhookView } from '#shared/domain/console/webhooks-view.ts';
import { escapeHtml, htmlDocument, PAGE_HEADERS } from '#shared/http/back-office-pages.ts';
import type { Reply } from '#shared/http/reply.ts';
import { STYLE, when } from './layout.ts';

const attemptText = (attempt: WebhookView['deliveries'][number]['attempts'][number]) =>
  `${when(attempt.at)} ${attempt.outcome}${attempt.statusCode !== undefined ? ` (HTTP ${attempt.statusCode})` : ''}${attempt.error ? `: ${attempt.error}` : ''}`;

/** A count carried in the page's query (`resent`, `skipped`): anything else than a positive integer reads 0. */
const countOf = (text: string | undefined) => {
  const n = Number(text ?? 0);
  return Number.isSafeInteger(n) && n > 0 ? n : 0;
};

/**
 * The notice after a re-send, from the post's redirect (`?resent=&skipped=&more=`): how many were re-sent, how many were
 * skipped because they changed at the same time (another re-send, or the delivery worker), and whether more remain.
 */
export const resendNotice = (query: {
  resent?: string | undefined;
  skipped?: string | undefined;
  more?: string | undefined;
}): string | undefined => {
  if (query.resent === undefined) return undefined;
  const resent = countOf(query.resent);
  const what = resent === 1 ? '1 delivery re-sent' : `${resent} deliveries re-sent`;
  const done = query.more === 'true' ? `${what}; more failed since then: re-send again for the rest.` : `${what}.`;
  const skipped = countOf(query.skipped);
  if (skipped === 0) return done;
  const which = skipped === 1 ? '1 delivery was not re-sent: it' : `${skipped} deliveries were not re-sent: they`;
  return `${done} ${which} changed at the same time (re-sent by another request, or being delivered); see the status below.`;
};

/** `GET /back-office/stores/{storeId}/webhooks`: subscriptions, their latest deliveries, re-sending. */
export const webhooksPage = (
  store: { storeId: string; name: string },
  views: readonly WebhookView[],
  notice?: string,
): Reply => {
  const storeBase = `/back-office/stores/${encodeURIComponent(store.storeId)}`;
  const resend = `${storeBase}/webhooks/resend`;
  const sections = views
    .map(({ webhook, deliveries, successRate }) => {
      const rows = deliveries
        .map((d) => {
          const button =
            d.status === 'failed' || d.status === 'cancelled'
              ? `<form method="post" action="${escapeHtml(resend)}"><input type="hidden" name="delivery" value="${escapeHtml(d.id)}"><button type="submit">Re-send<span class="visually-hidden"> delivery ${escapeHtml(d.id)}</span></button></form>`
              : '';
          const attempts = d.attempts.map((a) => `<li>${escapeHtml(attemptText(a))}</li>`).join('');
          return `<tr data-delivery="${escapeHtml(d.id)}"><td>${when(d.createdAt)}</td><td data-status="${escapeHtml(d.status)}">${escapeHtml(d.status)}${d.reason ? ` <span class="muted">(${escapeHtml(d.reason)})</span>` : ''}</td><td><details><summary>${d.attempts.length} attempt${d.attempts.length === 1 ? '' : 's'}</summary><ul>${attempts}</ul></details></td><td>${button}</td></tr>`;
        })
        .join('\n');
      const table = deliveries.length
        ? `<div class="scroll"><table class="deliveries"><caption>Latest deliveries, newest first</caption>
<thead><tr><th scope="col">Created (UTC)</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Action</th></tr></thead>
<tbody>
${rows}
</tbody>
</table></div>`
        : '<p>No delivery yet.</p>';
      const id = `since-${escapeHtml(webhook.id)}`;
      return `<section class="webhook" data-webhook="${escapeHtml(webhook.id)}" aria-labelledby="h-${escapeHtml(webhook.id)}">
<h2 id="h-${escapeHtml(webhook.id)}"><code>${escapeHtml(webhook.topic)}</code></h2>
<p>To <code>${escapeHtml(webhook.url)}</code> · success rate <strong class="success-rate">${successRate === undefined ? '—' : `${(successRate * 100).toFixed(1)} %`}</strong> <span class="muted">(delivered of delivered and failed, latest ${DELIVERIES_SHOWN})</span></p>
${table}
<form method="post" action="${escapeHtml(resend)}" class="range">
<input type="hidden" name="webhook" value="${escapeHtml(webhook.id)}">
<label for="${id}">Re-send every failed delivery since (UTC)<input type="datetime-local" id="${id}" name="since" required></label>
<button type="submit">Re-send failed</button>
</form>
</section>`;
    })
    .join('\n');
  const body = `<nav aria-label="Breadcrumb"><a href="/back-office">Back office</a> › <a href="${escapeHtml(storeBase)}">${escapeHtml(store.name)}</a> › Webhooks</nav>
<h1>Webhooks</h1>
${notice ? `<p role="status" id="notice">${escapeHtml(notice)}</p>` : ''}
${sections || '<p>This store has no webhook subscription. Subscribe with <code>POST /api/v1/webhooks</code>.</p>'}`;
  return {
    statusCode: 200,
    headers: PAGE_HEADERS,
    body: htmlDocument(`Webhooks · ${store.name} · Storeflow`, STYLE, body),
  };
};
