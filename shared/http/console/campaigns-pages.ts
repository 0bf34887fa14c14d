/** The store's campaigns (state, progress, stats) and one campaign with its recipients' outcomes and Cancel. */
import type { CampaignStats } from '#shared/domain/campaigns/manage-campaigns.ts';
import type { RecipientOutcome } from '#shared/domain/campaigns/model.ts';
import type { CampaignRow, CampaignsView, CampaignView } from '#shared/domain/console/campaigns-view.ts';
import { escapeHtml } from '#shared/http/back-office-pages.ts';
import type { Reply } from '#shared/http/reply.ts';
import { cards, count, page, revenue, storeBase, when } from './layout.ts';

type Store = { readonly storeId: string; readonly name: string };

const crumbs = (store: Store, ...rest: string[]) =>
  `<nav aria-label="Breadcrumb"><a href="/back-office">Back office</a> › <a href="${escapeHtml(storeBase(store.storeId))}">${escapeHtml(store.name)}</a> › ${rest.join(' › ')}</nav>`;

/** Segment ids as their names (linked), or `none`. */
const segmentList = (store: Store, ids: readonly string[], names: ReadonlyMap<string, string>) =>
  ids.length
    ? ids
        .map((id) => {
          const name = names.get(id);
          return name === undefined
            ? `<code>${escapeHtml(id)}</code> (deleted)`
            : `<a href="${escapeHtml(`${storeBase(store.storeId)}/segments/${encodeURIComponent(id)}`)}">${escapeHtml(name)}</a>`;
        })
        .join(', ')
    : 'none';

const progressLine = (p: CampaignRow['campaign']['progress']) =>
  `${count(p.sent)} sent of ${count(p.queued)} queued · ${count(p.recipients)} recipients, ${count(p.skipped)} skipped, ${count(p.failed)} failed`;

const statsLine = (s: CampaignStats) =>
  `${count(s.sent)} → ${count(s.delivered)} → ${count(s.opened)} → ${count(s.clicked)} → ${count(s.orders)}`;

/** `GET /back-office/stores/{storeId}/campaigns`: the campaigns newest first with their state, progress and stats. */
export const campaignsPage = (store: Store, view: CampaignsView): Reply => {
  const base = storeBase(store.storeId);
  const rows = view.rows
    .map(
      ({ campaign, stats }) =>
        `<tr data-campaign="${escapeHtml(campaign.id)}"><td>${when(campaign.sendAt * 1000)}</td><th scope="row"><a href="${escapeHtml(`${base}/campaigns/${encodeURIComponent(campaign.id)}`)}">${escapeHtml(campaign.name)}</a><br><span class="muted">${escapeHtml(campaign.subject)}</span></th><td data-key="segments">${segmentList(store, campaign.segments, view.names)}</td><td data-key="excluded">${segmentList(store, campaign.excludeSegments, view.names)}</td><td data-key="status" data-status="${escapeHtml(campaign.status)}">${escapeHtml(campaign.status)}</td><td data-key="progress">${progressLine(campaign.progress)}</td><td data-key="stats">${statsLine(stats)}</td></tr>`,
    )
    .join('\n');
  const table = view.rows.length
    ? `<div class="scroll"><table id="campaigns"><caption>Campaigns, newest first</caption>
<thead><tr><th scope="col">Due (UTC)</th><th scope="col">Name and subject</th><th scope="col">Segments</th><th scope="col">Excluded</th><th scope="col">State</th><th scope="col">Progress</th><th scope="col">Sent → delivered → opened → clicked → orders</th></tr></thead>
<tbody>
${rows}
</tbody>
</table></div>`
    : '<p id="campaigns">No campaign yet (<code>POST /api/v1/campaigns</code>).</p>';
  const older = view.nextCursor
    ? `<p><a id="older-campaigns" href="${escapeHtml(`${base}/campaigns?cursor=${encodeURIComponent(view.nextCursor)}`)}">Older campaigns</a></p>`
    : '';
  const body = `${crumbs(store, 'Campaigns')}
<h1>Campaigns</h1>
<p class="muted">Stats count deliveries, opens, clicks and influenced orders since each campaign was due.</p>
${table}
${older}`;
  return page(`Campaigns · ${store.name}`, body);
};

const outcome = (r: RecipientOutcome) => {
  const why = r.reason ?? r.error;
  return `${escapeHtml(r.status)}${why ? ` · ${escapeHtml(why)}` : ''}`;
};

/** `GET /back-office/stores/{storeId}/campaigns/{campaignId}`: one campaign, its stats and its recipients. */
export const campaignPage = (store: Store, view: CampaignView): Reply => {
  const base = storeBase(store.storeId);
  const { campaign, recipients, names } = view;
  const own = `${base}/campaigns/${encodeURIComponent(campaign.id)}`;
  const { progress, stats } = campaign;
  const cancel =
    campaign.status === 'scheduled' || campaign.status === 'sending'
      ? `<form method="post" action="${escapeHtml(`${own}/cancel`)}">
<button type="submit">Cancel this campaign</button> <span class="muted">Nothing more is sent: before its time, nothing at all; during the send, the recipients not yet handed on.</span>
</form>`
      : '';
  const rows = recipients.list
    .map(
      (r) =>
        `<tr data-status="${escapeHtml(r.status)}"><td><a href="${escapeHtml(`${base}/contacts?id=${encodeURIComponent(r.customerId)}`)}">${escapeHtml(r.customerId)}</a></td><td>${escapeHtml(r.email ?? '—')}</td><td>${outcome(r)}</td><td>${r.sentAt !== undefined ? when(r.sentAt * 1000) : '—'}</td></tr>`,
    )
    .join('\n');
  const table = recipients.list.length
    ? `<div class="scroll"><table id="recipients"><caption>Recipients, in customer id order</caption>
<thead><tr><th scope="col">Customer id</th><th scope="col">Email</th><th scope="col">Outcome</th><th scope="col">Sent (UTC)</th></tr></thead>
<tbody>
${rows}
</tbody>
</table></div>`
    : `<p id="recipients">${campaign.status === 'scheduled' || campaign.status === 'cancelled' ? 'No recipient was taken.' : 'No recipient on this page.'}</p>`;
  const more = recipients.nextCursor
    ? `<p><a id="more-recipients" href="${escapeHtml(`${own}?cursor=${encodeURIComponent(recipients.nextCursor)}`)}">More recipients</a></p>`
    : '';
  const times = [
    `due ${when(campaign.sendAt * 1000)}`,
    ...(campaign.startedAt !== undefined ? [`started ${when(campaign.startedAt * 1000)}`] : []),
    ...(campaign.cancelledAt !== undefined ? [`cancelled ${when(campaign.cancelledAt * 1000)}`] : []),
  ].join(' · ');
  const body = `${crumbs(store, `<a href="${escapeHtml(`${base}/campaigns`)}">Campaigns</a>`, escapeHtml(campaign.name))}
<h1>${escapeHtml(campaign.name)}</h1>
<p id="subject">Subject: <q>${escapeHtml(campaign.subject)}</q> from ${escapeHtml(campaign.from.email)}</p>
<p id="audience">To ${segmentList(store, campaign.segments, names)}; excluding ${segmentList(store, campaign.excludeSegments, names)}.</p>
<p class="muted" id="times">UTC: ${times}</p>
${cards('campaign-progress', [
  ['status', 'State', escapeHtml(campaign.status)],
  ['recipients', 'Recipients', count(progress.recipients)],
  ['queued', 'Queued', count(progress.queued)],
  ['skipped', 'Skipped', count(progress.skipped)],
  ['sent', 'Sent', count(progress.sent)],
  ['failed', 'Failed', count(progress.failed)],
])}
${cancel}
<h2 id="stats-heading">Stats</h2>
${cards('campaign-stats', [
  ['sent', 'Sent', count(stats.sent)],
  ['delivered', 'Delivered', count(stats.delivered)],
  ['opened', 'Opened', count(stats.opened)],
  ['clicked', 'Clicked', count(stats.clicked)],
  ['orders', 'Orders', count(stats.orders)],
  ['revenue', 'Revenue', revenue(stats.revenue)],
])}
<h2 id="recipients-heading">Recipients</h2>
${table}
${more}`;
  return page(`${campaign.name} · ${store.name}`, body);
};
