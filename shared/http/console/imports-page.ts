/** The store's import jobs, their progress and line errors. */
import type { ImportRow } from '#shared/domain/console/imports-view.ts';
import { escapeHtml, htmlDocument, PAGE_HEADERS } from '#shared/http/back-office-pages.ts';
import type { Reply } from '#shared/http/reply.ts';
import { count, STYLE, when } from './layout.ts';

/** Line errors shown per job (the job keeps up to 1,000; `GET /api/v1/batch/{jobId}` has them all). */
const LINE_ERRORS_SHOWN = 50;

/** `GET /back-office/stores/{storeId}/imports`: the latest import jobs, their progress and line errors. */
export const importsPage = (
  store: { storeId: string; name: string },
  view: { rows: readonly ImportRow[]; nextCursor?: string },
): Reply => {
  const storeBase = `/back-office/stores/${encodeURIComponent(store.storeId)}`;
  const rows = view.rows
    .map(({ job, progress }) => {
      const errors = job.errors
        .slice(0, LINE_ERRORS_SHOWN)
        .map((e) => `<li>Line ${count(e.line)}: ${escapeHtml(e.reason)}</li>`)
        .join('');
      const more =
        job.errors.length > LINE_ERRORS_SHOWN ? `<li>… ${count(job.errors.length - LINE_ERRORS_SHOWN)} more</li>` : '';
      const errorCell = job.errors.length
        ? `<details><summary>${count(job.errors.length)} line error${job.errors.length === 1 ? '' : 's'}</summary><ul>${errors}${more}</ul></details>`
        : '—';
      const bar =
        progress === undefined
          ? ''
          : ` <progress max="100" value="${Math.round(progress * 100)}" aria-label="Progress of ${escapeHtml(job.id)}">${Math.round(progress * 100)} %</progress>`;
      return `<tr data-job="${escapeHtml(job.id)}"><td>${when(job.createdAt)}</td><td data-status="${escapeHtml(job.status)}">${escapeHtml(job.status)}${job.result ? ` (${escapeHtml(job.result)})` : ''}${bar}</td><td class="n">${count(job.counts.lines)}</td><td class="n">${count(job.counts.imported)}</td><td class="n">${count(job.counts.created)}</td><td class="n">${count(job.counts.failed)}</td><td>${errorCell}</td></tr>`;
    })
    .join('\n');
  const table = view.rows.length
    ? `<div class="scroll"><table id="imports"><caption>Import jobs, newest first</caption>
<thead><tr><th scope="col">Created (UTC)</th><th scope="col">Status</th><th scope="col" class="n">Lines read</th><th scope="col" class="n">Imported</th><th scope="col" class="n">Created</th><th scope="col" class="n">Failed</th><th scope="col">Line errors</th></tr></thead>
<tbody>
${rows}
</tbody>
</table></div>`
    : '<p id="imports">No import yet. Import contacts with <code>POST /api/v1/batch/customers</code>.</p>';
  const older = view.nextCursor
    ? `<p><a href="${escapeHtml(`${storeBase}/imports?cursor=${encodeURIComponent(view.nextCursor)}`)}">Older imports</a></p>`
    : '';
  const body = `<nav aria-label="Breadcrumb"><a href="/back-office">Back office</a> › <a href="${escapeHtml(storeBase)}">${escapeHtml(store.name)}</a> › Imports</nav>
<h1>Imports</h1>
${table}
${older}`;
  return {
    statusCode: 200,
    headers: PAGE_HEADERS,
    body: htmlDocument(`Imports · ${store.name} · Storeflow`, STYLE, body),
  };
};
