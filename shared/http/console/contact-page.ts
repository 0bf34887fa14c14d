/** The contact page: search by email, phone or name; a page of matching contacts; a profile and its timeline. */

import { asWritten } from '#shared/domain/campaigns/content.ts';
import type {
  ContactPageQuery,
  ContactPageView,
  ContactView,
  EmailOutcomeEntry,
  TimelineEntry,
} from '#shared/domain/console/contact-view.ts';
import { endReasonText } from '#shared/domain/console/run-outcome.ts';
import type { ContactSearch } from '#shared/domain/contacts/contact-search.ts';
import type { Customer } from '#shared/domain/customers/model.ts';
import { escapeHtml, htmlDocument, PAGE_HEADERS } from '#shared/http/back-office-pages.ts';
import type { Reply } from '#shared/http/reply.ts';
import { STYLE, when } from './layout.ts';

const OUTCOME_LABELS: Record<EmailOutcomeEntry['outcome'], string> = {
  delivered: 'Delivered',
  opened: 'Opened',
  clicked: 'Clicked',
  bounced: 'Bounced',
  complained: 'Complained',
  unsubscribed: 'Unsubscribed',
  failed: 'Not sent',
};

const outcomeItem = (entry: EmailOutcomeEntry) => {
  const times = entry.count !== undefined && entry.count > 1 ? ` (${entry.count} times, the latest)` : '';
  const detail = entry.detail ? `: ${escapeHtml(entry.detail)}` : '';
  return `<li data-outcome="${entry.outcome}">${OUTCOME_LABELS[entry.outcome]} ${when(entry.at)}${times}${detail}</li>`;
};

const emailRow = (storeBase: string, entry: Extract<TimelineEntry, { type: 'email' }>) => {
  const origin =
    entry.kind === 'flow'
      ? `${entry.flowId ? `<a href="${escapeHtml(`${storeBase}/flows/${encodeURIComponent(entry.flowId)}`)}">${escapeHtml(entry.flowName ?? entry.flowId)}</a>` : 'a flow'}${entry.step ? ` at step ${entry.step}` : ''}`
      : `bulk send <a href="${escapeHtml(`${storeBase}/sending/${encodeURIComponent(entry.transmissionId)}`)}"><code>${escapeHtml(entry.transmissionId)}</code></a>`;
  const subject = entry.subject ? `<q>${escapeHtml(asWritten(entry.subject))}</q> · ` : '';
  const outcomes =
    entry.outcomes.length > 0
      ? `<ul class="outcomes">${entry.outcomes.map(outcomeItem).join('')}</ul>`
      : '<p class="muted">Nothing reported by SES yet.</p>';
  return `<td>Email</td><td>${subject}${origin}${outcomes}</td>`;
};

const timelineRow = (storeBase: string, entry: TimelineEntry) => {
  switch (entry.type) {
    case 'event':
      return `<td>Event</td><td><code>${escapeHtml(entry.kind)}</code> · ${escapeHtml(entry.subject)}</td>`;
    case 'evaluation': {
      const flow = escapeHtml(entry.flowName ?? entry.flowId ?? 'no flow of the kind');
      const outcome =
        entry.outcome === 'entered'
          ? `entered${entry.runStatus ? ` (run ${escapeHtml(entry.runStatus)})` : ''}`
          : `skipped: <strong>${escapeHtml(entry.reason ? endReasonText(entry.reason) : 'unknown')}</strong>`;
      return `<td>Flow decision</td><td>${flow}: ${outcome}</td>`;
    }
    case 'run':
      return `<td>Run</td><td>${escapeHtml(entry.flowName ?? 'a deleted flow')}: ${escapeHtml(entry.event)}${entry.step ? ` at step ${entry.step}` : ''}${entry.detail ? ` (${escapeHtml(entry.detail)})` : ''}</td>`;
    case 'email':
      return emailRow(storeBase, entry);
  }
};

const nameOf = (contact: Customer) => [contact.firstName, contact.lastName].filter(Boolean).join(' ');

const profile = (contact: Customer) => {
  const tags = [...contact.platformTags, ...contact.categoryTags.map((t) => `${t.category}:${t.value}`)];
  const rows: [string, string][] = [
    ['Name', escapeHtml(nameOf(contact) || '—')],
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

const profileBody = (storeBase: string, view: ContactView) => {
  const [first] = view.contacts;
  const heading = view.email ?? (first ? nameOf(first) || first.originId : '');
  const contacts =
    view.contacts.length > 0
      ? view.contacts.map(profile).join('\n')
      : '<p>No contact of this store has this address; the flows may still have seen it (below).</p>';
  const timeline = !view.email
    ? '<p id="timeline">This contact has no email address: the timeline follows an address.</p>'
    : view.timeline.length > 0
      ? `<div class="scroll"><table id="timeline"><caption>Newest first: events that reached the flows (${90} days), every flow's decision, each run's steps, and the emails sent with what SES reported</caption>
<thead><tr><th scope="col">When (UTC)</th><th scope="col">What</th><th scope="col">Detail</th></tr></thead>
<tbody>
${view.timeline.map((entry) => `<tr data-type="${entry.type}"><td>${when(entry.at)}</td>${timelineRow(storeBase, entry)}</tr>`).join('\n')}
</tbody>
</table></div>`
      : '<p id="timeline">Nothing has happened to this address yet.</p>';
  const suppression = view.email
    ? `<p id="suppression">${view.suppressed ? '<strong>Suppressed</strong>: this store sends it no more email (unsubscribed, bounced or complained).' : 'Not suppressed.'}</p>`
    : '';
  return `<h2 id="profile-heading">${escapeHtml(heading)}</h2>
${suppression}
${contacts}
<h2 id="timeline-heading">Timeline</h2>
${timeline}`;
};

const searchWords = (search: Exclude<ContactSearch, { kind: 'email' }>) =>
  search.kind === 'phone' ? `whose phone is ${search.phone}` : `whose name starts with “${search.name}”`;

const resultsBody = (
  storeBase: string,
  view: Extract<ContactPageView, { type: 'results' }>,
  query: ContactPageQuery,
) => {
  const contactsUrl = `${storeBase}/contacts`;
  const next = view.nextCursor
    ? `<p><a id="next-page" href="${escapeHtml(`${contactsUrl}?${new URLSearchParams({ [view.search.kind]: view.search.kind === 'phone' ? view.search.phone : view.search.name, cursor: view.nextCursor })}`)}">Next contacts</a></p>`
    : '';
  const rows = view.contacts.map(
    (
      contact,
    ) => `<tr><th scope="row"><a href="${escapeHtml(`${contactsUrl}?${new URLSearchParams({ id: contact.originId })}`)}">${escapeHtml(nameOf(contact) || contact.originId)}</a></th>
<td>${escapeHtml(contact.email ?? '—')}</td><td>${escapeHtml(contact.phone ?? '—')}</td><td><code>${escapeHtml(contact.originId)}</code></td><td>${when(contact.createdAt * 1000)}</td></tr>`,
  );
  const table =
    view.contacts.length > 0
      ? `<div class="scroll"><table id="results"><caption>Contacts ${escapeHtml(searchWords(view.search))}${query.cursor ? ' (continued)' : ''}</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Email</th><th scope="col">Phone</th><th scope="col">Customer id</th><th scope="col">Created (UTC)</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table></div>`
      : `<p id="results">No ${query.cursor ? 'more ' : ''}contacts ${escapeHtml(searchWords(view.search))}.</p>`;
  return `<h2 id="results-heading">Results</h2>\n${table}\n${next}`;
};

const statusOf = (view: ContactPageView) => (view.type === 'refused' ? 400 : view.type === 'missing' ? 404 : 200);

/** `GET /back-office/stores/{storeId}/contacts?q=|email=|phone=|name=|id=[&cursor=]`: find contacts; a profile. */
export const contactPage = (
  store: { storeId: string; name: string },
  query: ContactPageQuery,
  view: ContactPageView,
): Reply => {
  const storeBase = `/back-office/stores/${encodeURIComponent(store.storeId)}`;
  const typed = query.q ?? query.email ?? query.phone ?? query.name ?? '';
  const search = `<form class="range" method="get" action="${escapeHtml(`${storeBase}/contacts`)}" role="search">
<label for="q">Email, phone or name<input type="search" id="q" name="q" value="${escapeHtml(typed)}" required aria-describedby="q-hint"></label>
<button type="submit">Find</button>
</form>
<p id="q-hint" class="hint">An address finds its contacts in any case. A phone number is matched whole, as digits with an optional leading + (spaces, dashes, dots and parentheses do not matter). A name finds the contacts whose first name, last name or whole name starts with it, in any case and with or without accents.</p>`;
  let body = '';
  switch (view.type) {
    case 'form':
      break;
    case 'refused':
      body = `<p role="alert" class="error" id="search-error">${escapeHtml(view.message)}</p>`;
      break;
    case 'missing':
      body = `<p role="alert" id="missing">No contact of this store has the customer id <code>${escapeHtml(view.id)}</code>.</p>`;
      break;
    case 'results':
      body = resultsBody(storeBase, view, query);
      break;
    case 'profile':
      body = profileBody(storeBase, view.view);
      break;
  }
  const page = `<nav aria-label="Breadcrumb"><a href="/back-office">Back office</a> › <a href="${escapeHtml(storeBase)}">${escapeHtml(store.name)}</a> › Contacts</nav>
<h1>Contacts</h1>
${search}
${body}`;
  return {
    statusCode: statusOf(view),
    headers: PAGE_HEADERS,
    body: htmlDocument(`Contacts · ${store.name} · Storeflow`, `${STYLE}${PROFILE_STYLE}`, page),
  };
};

const PROFILE_STYLE = `
  dl.profile { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; }
  dl.profile dt { color: #52606d; }
  dl.profile dd { margin: 0; }
  ul.outcomes { margin: .25rem 0 0; padding-left: 1.2rem; }
  td { overflow-wrap: anywhere; }
`;
