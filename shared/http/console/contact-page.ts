/** A contact found by email: its profile, suppression and one timeline. */
import type { ContactView, TimelineEntry } from '#shared/domain/console/contact-view.ts';
import { escapeHtml, htmlDocument, PAGE_HEADERS } from '#shared/http/back-office-pages.ts';
import type { Reply } from '#shared/http/reply.ts';
import { STYLE, when } from './layout.ts';

const timelineRow = (entry: TimelineEntry) => {
  switch (entry.type) {
    case 'event':
      return `<td>Event</td><td><code>${escapeHtml(entry.kind)}</code> · ${escapeHtml(entry.subject)}</td>`;
    case 'evaluation': {
      const flow = escapeHtml(entry.flowName ?? entry.flowId ?? 'no flow of the kind');
      const outcome =
        entry.outcome === 'entered'
          ? `entered${entry.runStatus ? ` (run ${escapeHtml(entry.runStatus)})` : ''}`
          : `skipped: <strong>${escapeHtml(entry.reason ?? 'unknown')}</strong>`;
      return `<td>Flow decision</td><td>${flow}: ${outcome}</td>`;
    }
    case 'run':
      return `<td>Run</td><td>${escapeHtml(entry.flowName ?? 'a deleted flow')}: ${escapeHtml(entry.event)}${entry.stepId ? ` at step <code>${escapeHtml(entry.stepId)}</code>` : ''}${entry.detail ? ` (${escapeHtml(entry.detail)})` : ''}</td>`;
  }
};

const profile = (contact: ContactView['contacts'][number]) => {
  const name = [contact.firstName, contact.lastName].filter(Boolean).join(' ') || '—';
  const tags = [...contact.platformTags, ...contact.categoryTags.map((t) => `${t.category}:${t.value}`)];
  const rows: [string, string][] = [
    ['Name', escapeHtml(name)],
    ['Email', escapeHtml(contact.email ?? '—')],
    ['Phone', escapeHtml(contact.phone ?? '—')],
    ['Country', escapeHtml(contact.countryCode ?? '—')],
    ['Customer id', `<code>${escapeHtml(contact.originId)}</code>`],
    ['Email consent', escapeHtml(contact.emailConsent?.state ?? 'unknown')],
    ['SMS consent', escapeHtml(contact.smsConsent?.state ?? 'unknown')],
    ['Tags', tags.length > 0 ? tags.map((t) => `<code>${escapeHtml(t)}</code>`).join(' ') : '—'],
    ['Created', when(contact.createdAt * 1000)],
  ];
  return `<dl class="profile">${rows.map(([dt, dd]) => `<dt>${dt}</dt><dd>${dd}</dd>`).join('')}</dl>`;
};

/** `GET /back-office/stores/{storeId}/contacts?email=`: find a contact; its profile and timeline. */
export const contactPage = (store: { storeId: string; name: string }, view: ContactView | undefined): Reply => {
  const storeBase = `/back-office/stores/${encodeURIComponent(store.storeId)}`;
  const search = `<form class="range" method="get" action="${escapeHtml(`${storeBase}/contacts`)}" role="search">
<label for="email">Email address<input type="email" id="email" name="email" value="${escapeHtml(view?.email ?? '')}" required></label>
<button type="submit">Find</button>
</form>`;
  let body = '';
  if (view) {
    const contacts =
      view.contacts.length > 0
        ? view.contacts.map(profile).join('\n')
        : '<p>No contact of this store has this address; the flows may still have seen it (below).</p>';
    const timeline =
      view.timeline.length > 0
        ? `<div class="scroll"><table id="timeline"><caption>Newest first: events that reached the flows (${90} days), every flow's decision and each run's steps</caption>
<thead><tr><th scope="col">When (UTC)</th><th scope="col">What</th><th scope="col">Detail</th></tr></thead>
<tbody>
${view.timeline.map((entry) => `<tr data-type="${entry.type}"><td>${when(entry.at)}</td>${timelineRow(entry)}</tr>`).join('\n')}
</tbody>
</table></div>`
        : '<p id="timeline">Nothing has happened to this address yet.</p>';
    body = `<h2 id="profile-heading">${escapeHtml(view.email)}</h2>
<p id="suppression">${view.suppressed ? '<strong>Suppressed</strong>: this store sends it no more email (unsubscribed, bounced or complained).' : 'Not suppressed.'}</p>
${contacts}
<h2 id="timeline-heading">Timeline</h2>
${timeline}`;
  }
  const page = `<nav aria-label="Breadcrumb"><a href="/back-office">Back office</a> › <a href="${escapeHtml(storeBase)}">${escapeHtml(store.name)}</a> › Contacts</nav>
<h1>Contacts</h1>
${search}
${body}`;
  return {
    statusCode: 200,
    headers: PAGE_HEADERS,
    body: htmlDocument(`Contacts · ${store.name} · Storeflow`, `${STYLE}${PROFILE_STYLE}`, page),
  };
};

const PROFILE_STYLE = `
  dl.profile { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; }
  dl.profile dt { color: #52606d; }
  dl.profile dd { margin: 0; }
`;
