/** The store's segments (live counts, conditions) and one segment's members. */
import type { SegmentView } from '#shared/domain/console/segments-view.ts';
import type { SegmentRecord } from '#shared/domain/segments/manage-segments.ts';
import { escapeHtml } from '#shared/http/back-office-pages.ts';
import type { Reply } from '#shared/http/reply.ts';
import { conditionText } from './flow-pages.ts';
import { cards, count, page, storeBase, when } from './layout.ts';

const crumbs = (store: { storeId: string; name: string }, ...rest: string[]) =>
  `<nav aria-label="Breadcrumb"><a href="/back-office">Back office</a> › <a href="${escapeHtml(storeBase(store.storeId))}">${escapeHtml(store.name)}</a> › ${rest.join(' › ')}</nav>`;

/** A status as shown: `ready`, or `building` with the contacts read so far. */
const status = (segment: SegmentRecord) =>
  segment.status === 'ready'
    ? 'ready'
    : `${escapeHtml(segment.status)} (${count(segment.build.scanned)} contacts read)`;

/** `GET /back-office/stores/{storeId}/segments`: every segment with its live count and its conditions on one line. */
export const segmentsPage = (
  store: { storeId: string; name: string },
  view: { list: readonly SegmentRecord[] },
): Reply => {
  const base = storeBase(store.storeId);
  const rows = view.list
    .map(
      (segment) =>
        `<tr data-segment="${escapeHtml(segment.id)}"><th scope="row"><a href="${escapeHtml(`${base}/segments/${encodeURIComponent(segment.id)}`)}">${escapeHtml(segment.name)}</a></th><td class="n" data-key="count">${count(segment.count)}</td><td data-key="status">${status(segment)}</td><td data-key="conditions"><code>${escapeHtml(conditionText(segment.conditions))}</code></td></tr>`,
    )
    .join('\n');
  const table = view.list.length
    ? `<div class="scroll"><table id="segments"><caption>Segments, oldest first</caption>
<thead><tr><th scope="col">Name</th><th scope="col" class="n">Members</th><th scope="col">Status</th><th scope="col">Conditions</th></tr></thead>
<tbody>
${rows}
</tbody>
</table></div>`
    : '<p id="segments">No segment yet (<code>POST /api/v1/segments</code>).</p>';
  const body = `${crumbs(store, 'Segments')}
<h1>Segments</h1>
<p class="muted">Members are counted as events change the contacts: the count is live.</p>
${table}`;
  return page(`Segments · ${store.name}`, body);
};

/** `GET /back-office/stores/{storeId}/segments/{segmentId}`: the segment, its conditions and a page of its members. */
export const segmentPage = (store: { storeId: string; name: string }, view: SegmentView): Reply => {
  const base = storeBase(store.storeId);
  const { segment, members } = view;
  const own = `${base}/segments/${encodeURIComponent(segment.id)}`;
  const rows = members.list
    .map(
      (member) =>
        `<tr><td><a href="${escapeHtml(`${base}/contacts?id=${encodeURIComponent(member.customerId)}`)}">${escapeHtml(member.customerId)}</a></td><td>${escapeHtml(member.email ?? '—')}</td><td>${when(member.enteredAt * 1000)}</td></tr>`,
    )
    .join('\n');
  const table = members.list.length
    ? `<div class="scroll"><table id="members"><caption>Members, in customer id order</caption>
<thead><tr><th scope="col">Customer id</th><th scope="col">Email</th><th scope="col">Entered (UTC)</th></tr></thead>
<tbody>
${rows}
</tbody>
</table></div>`
    : '<p id="members">No member on this page.</p>';
  const more = members.nextCursor
    ? `<p><a id="more-members" href="${escapeHtml(`${own}?cursor=${encodeURIComponent(members.nextCursor)}`)}">More members</a></p>`
    : '';
  const body = `${crumbs(store, `<a href="${escapeHtml(`${base}/segments`)}">Segments</a>`, escapeHtml(segment.name))}
<h1>${escapeHtml(segment.name)}</h1>
${cards('segment-facts', [
  ['count', 'Members', count(segment.count)],
  ['status', 'Status', status(segment)],
  ['updated', 'Updated (UTC)', when(segment.updatedAt * 1000)],
  ['id', 'Id', `<code>${escapeHtml(segment.id)}</code>`],
])}
<p id="conditions">Conditions: <code>${escapeHtml(conditionText(segment.conditions))}</code></p>
<h2 id="members-heading">Members</h2>
${table}
${more}`;
  return page(`${segment.name} · ${store.name}`, body);
};
