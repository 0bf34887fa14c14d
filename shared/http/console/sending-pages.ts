/** The store's bulk sends and one send's recipients not sent. */
import { asWritten } from '#shared/domain/campaigns/content.ts';
import type { BatchRow } from '#shared/domain/console/sending-view.ts';
import type { BatchView } from '#shared/domain/email/read-batch.ts';
import { escapeHtml, htmlDocument, PAGE_HEADERS } from '#shared/http/back-office-pages.ts';
import type { Reply } from '#shared/http/reply.ts';
import { cards, count, STYLE, when } from './layout.ts';

/** `GET /back-office/stores/{storeId}/sending`: the store's bulk batches with their counts. */
export const sendingPage = (
  store: { storeId: string; name: string },
  view: { rows: readonly BatchRow[]; nextCursor?: string },
): Reply => {
  const storeBase = `/back-office/stores/${encodeURIComponent(store.storeId)}`;
  const rows = view.rows
    .map(
      ({ batch, status, pending }) =>
        `<tr data-batch="${escapeHtml(batch.id)}"><td>${when(batch.createdAt)}</td><th scope="row"><a href="${escapeHtml(`${storeBase}/sending/${encodeURIComponent(batch.id)}`)}">${escapeHtml(asWritten(batch.subject))}</a></th><td data-status="${status}">${status}</td><td class="n">${count(batch.totalAccepted)}</td><td class="n">${count(batch.totalRejected)}</td><td class="n">${count(batch.sent)}</td><td class="n">${count(batch.failed)}</td><td class="n">${count(pending)}</td></tr>`,
    )
    .join('\n');
  const table = view.rows.length
    ? `<div class="scroll"><table id="batches"><caption>Bulk sends, newest first</caption>
<thead><tr><th scope="col">Created (UTC)</th><th scope="col">Subject</th><th scope="col">Status</th><th scope="col" class="n">Accepted</th><th scope="col" class="n">Rejected</th><th scope="col" class="n">Sent</th><th scope="col" class="n">Failed</th><th scope="col" class="n">Pending</th></tr></thead>
<tbody>
${rows}
</tbody>
</table></div>`
    : '<p id="batches">No bulk send yet (<code>POST /api/v1/sending</code> on the sending host).</p>';
  const older = view.nextCursor
    ? `<p><a href="${escapeHtml(`${storeBase}/sending?cursor=${encodeURIComponent(view.nextCursor)}`)}">Older sends</a></p>`
    : '';
  const body = `<nav aria-label="Breadcrumb"><a href="/back-office">Back office</a> › <a href="${escapeHtml(storeBase)}">${escapeHtml(store.name)}</a> › Sending</nav>
<h1>Bulk sending</h1>
${table}
${older}`;
  return {
    statusCode: 200,
    headers: PAGE_HEADERS,
    body: htmlDocument(`Sending · ${store.name} · Storeflow`, STYLE, body),
  };
};

/** `GET /back-office/stores/{storeId}/sending/{batchId}`: one batch, its counts and every recipient not sent, why. */
export const batchPage = (store: { storeId: string; name: string }, batch: BatchView): Reply => {
  const storeBase = `/back-office/stores/${encodeURIComponent(store.storeId)}`;
  const problems = [
    ...batch.rejections.map((r) => ({ index: r.index, email: r.email, outcome: 'rejected', why: r.reason })),
    ...batch.failures.map((f) => ({ index: f.index, email: f.email, outcome: 'failed', why: f.error })),
  ].sort((a, b) => a.index - b.index);
  const rows = problems
    .map(
      (p) =>
        `<tr><td class="n">${count(p.index)}</td><td>${escapeHtml(p.email)}</td><td>${p.outcome}</td><td>${escapeHtml(p.why)}</td></tr>`,
    )
    .join('\n');
  const table = problems.length
    ? `<div class="scroll"><table id="recipients"><caption>Recipients not sent, in request order</caption>
<thead><tr><th scope="col" class="n">#</th><th scope="col">Email</th><th scope="col">Outcome</th><th scope="col">Why</th></tr></thead>
<tbody>
${rows}
</tbody>
</table></div>`
    : '<p id="recipients">Every accepted recipient was sent or is pending; none was rejected.</p>';
  const body = `<nav aria-label="Breadcrumb"><a href="/back-office">Back office</a> › <a href="${escapeHtml(storeBase)}">${escapeHtml(store.name)}</a> › <a href="${escapeHtml(`${storeBase}/sending`)}">Sending</a> › ${escapeHtml(batch.id)}</nav>
<h1>${escapeHtml(asWritten(batch.subject))}</h1>
${cards('batch-counts', [
  ['status', 'Status', escapeHtml(batch.status)],
  ['accepted', 'Accepted', count(batch.totalAccepted)],
  ['rejected', 'Rejected', count(batch.totalRejected)],
  ['sent', 'Sent', count(batch.sent)],
  ['failed', 'Failed', count(batch.failed)],
  ['pending', 'Pending', count(batch.pending)],
])}
<p class="muted">From ${escapeHtml(batch.from.email)} · batch <code>${escapeHtml(batch.id)}</code> · ${count(batch.chunksDone)} of ${count(batch.chunks)} chunks done. Delivery, opens and clicks of its emails are counted in the store's overview.</p>
<h2 id="recipients-heading">Recipients not sent</h2>
${table}`;
  return {
    statusCode: 200,
    headers: PAGE_HEADERS,
    body: htmlDocument(`${asWritten(batch.subject)} · Storeflow`, STYLE, body),
  };
};
