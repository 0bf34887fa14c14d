/**
 * The console's pages (issue 17; docs/decisions.md, "The console: server-rendered pages"): HTML rendered on the server
 * from the same use cases as the API, no script, the back office's headers (strict CSP, no framing, no caching).
 * Every value is escaped with `escapeHtml`; numbers are formatted here, never taken as markup.
 */
import type { Stats } from '#shared/domain/attribution/model.ts';
import type { ContactView, TimelineEntry } from '#shared/domain/console/contact-view.ts';
import type { EmailPreview, FlowDetail } from '#shared/domain/console/flow-detail.ts';
import type { NewFlowFields, StepEdit } from '#shared/domain/console/flow-editor.ts';
import type { ImportRow } from '#shared/domain/console/imports-view.ts';
import type { StoreOverview } from '#shared/domain/console/overview.ts';
import type { BatchRow } from '#shared/domain/console/sending-view.ts';
import { DELIVERIES_SHOWN, type WebhookView } from '#shared/domain/console/webhooks-view.ts';
import type { BatchView } from '#shared/domain/email/read-batch.ts';
import type { SenderView } from '#shared/domain/email/sender.ts';
import { escapeHtml, htmlDocument, PAGE_HEADERS } from './back-office-pages.ts';
import type { Reply } from './reply.ts';

const STYLE = `
  body { font: 16px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1f2933; background: #f5f7fa; margin: 0; }
  main { max-width: 72rem; margin: 2rem auto; padding: 1.5rem 2rem; background: #fff; border-radius: 8px;
         box-shadow: 0 1px 3px rgba(0,0,0,.12); }
  nav a, a { color: #0b5cad; }
  h1 { font-size: 1.5rem; margin: .5rem 0 1rem; }
  h2 { font-size: 1.15rem; margin-top: 2rem; }
  form.range { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: end; }
  form.range label { display: flex; flex-direction: column; font-size: .9rem; color: #3e4c59; }
  input, button { font: inherit; padding: .3rem .5rem; }
  button { padding: .3rem .9rem; cursor: pointer; }
  :focus-visible { outline: 3px solid #0b5cad; outline-offset: 2px; }
  .cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(11rem, 1fr)); gap: .75rem; margin: 0; }
  .cards div { border: 1px solid #e4e7eb; border-radius: 6px; padding: .6rem .8rem; }
  .cards dt { color: #52606d; font-size: .9rem; }
  .cards dd { margin: 0; font-size: 1.4rem; font-variant-numeric: tabular-nums; overflow-wrap: anywhere; }
  .cards dd code { font-size: 1rem; }
  table { border-collapse: collapse; width: 100%; margin-top: .5rem; }
  caption { text-align: left; color: #52606d; padding-bottom: .3rem; }
  th, td { text-align: left; padding: .4rem .5rem; border-bottom: 1px solid #e4e7eb; vertical-align: top; }
  td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
  .muted { color: #52606d; }
  .scroll { overflow-x: auto; }
  .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
  .field { display: flex; flex-direction: column; margin: .75rem 0; max-width: 48rem; }
  .field label { font-weight: 600; }
  .hint { color: #52606d; font-size: .9rem; }
  textarea { font: 13px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; padding: .4rem; }
  .error { color: #9b1c1c; }
  [role=alert] { border: 1px solid #f0b4b4; background: #fdf2f2; padding: .6rem .8rem; border-radius: 6px; }
  fieldset { border: 1px solid #e4e7eb; border-radius: 6px; margin: .75rem 0; }
`;

const page = (title: string, body: string): Reply => ({
  statusCode: 200,
  headers: PAGE_HEADERS,
  body: htmlDocument(`${title} · Storeflow`, STYLE, body),
});

const count = (n: number) => escapeHtml(n.toLocaleString('en-US'));

/** Revenue per currency (`{EUR: '39.80'}`) as `EUR 39.80`, several joined; `—` when none. */
const revenue = (amounts: Readonly<Record<string, string>>) => {
  const parts = Object.entries(amounts).map(([currency, amount]) => `${currency} ${amount}`);
  return parts.length > 0 ? escapeHtml(parts.join(', ')) : '—';
};

/** A rate as a percentage of a base (`—` without a base). */
const rate = (n: number, base: number) => (base > 0 ? `${((n / base) * 100).toFixed(1)} %` : '—');

const FUNNEL_CARDS: readonly [keyof Stats, string][] = [
  ['emailed', 'Sent'],
  ['delivered', 'Delivered'],
  ['opened', 'Opened'],
  ['clicked', 'Clicked'],
  ['bounced', 'Bounced'],
  ['unsubscribed', 'Unsubscribed'],
];

const cards = (id: string, items: readonly (readonly [string, string, string])[]) =>
  `<dl class="cards" id="${id}">\n${items
    .map(([key, label, value]) => `<div data-key="${key}"><dt>${label}</dt><dd>${value}</dd></div>`)
    .join('\n')}\n</dl>`;

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

/** `GET /back-office/stores/{storeId}`: the store's emails, earned orders and flows over a range of days. */
export const storeOverviewPage = (store: { storeId: string; name: string }, overview: StoreOverview): Reply => {
  const { totals } = overview;
  const base = `/back-office/stores/${encodeURIComponent(store.storeId)}`;
  const flowRows = overview.flows
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
    overview.flows.length > 0
      ? `<div class="scroll"><table id="flows">
<caption>Each flow's runs and emails from ${escapeHtml(overview.from)} to ${escapeHtml(overview.to)}</caption>
<thead><tr><th scope="col">Flow</th><th scope="col">State</th><th scope="col" class="n">Entered</th>
<th scope="col" class="n">Emailed</th><th scope="col" class="n">Delivered</th><th scope="col" class="n">Opened</th>
<th scope="col" class="n">Clicked</th><th scope="col" class="n">Recovered orders</th>
<th scope="col" class="n">Recovered revenue</th><th scope="col" class="n">Influenced orders</th></tr></thead>
<tbody>
${flowRows}
</tbody>
</table></div>`
      : '<p id="flows">This store has no flow yet.</p>';
  const body = `<nav aria-label="Breadcrumb"><a href="/back-office">Back office</a> › ${escapeHtml(store.name)}</nav>
<h1>${escapeHtml(store.name)}</h1>
<p><a href="${escapeHtml(`${base}/contacts`)}">Find a contact</a> · <a href="${escapeHtml(`${base}/new-flow`)}">New flow from a preset</a> · <a href="${escapeHtml(`${base}/webhooks`)}">Webhooks</a> · <a href="${escapeHtml(`${base}/senders`)}">Sending domains</a> · <a href="${escapeHtml(`${base}/imports`)}">Imports</a> · <a href="${escapeHtml(`${base}/sending`)}">Bulk sending</a></p>
<form class="range" method="get" action="${escapeHtml(base)}">
<label for="from">From<input type="date" id="from" name="from" value="${escapeHtml(overview.from)}" required></label>
<label for="to">To<input type="date" id="to" name="to" value="${escapeHtml(overview.to)}" required></label>
<button type="submit">Show</button>
</form>
<p class="muted">Days are UTC; counts are kept as events arrive (docs/attribution.md).</p>
<h2 id="emails-heading">Emails</h2>
${cards(
  'emails',
  FUNNEL_CARDS.map(([key, label]) => [key, label, count(totals[key] as number)] as const),
)}
<p class="muted" id="rates">Delivered ${rate(totals.delivered, totals.emailed)} of sent · opened ${rate(totals.opened, totals.delivered)} and clicked ${rate(totals.clicked, totals.delivered)} of delivered</p>
<h2 id="orders-heading">Orders the emails earned</h2>
${cards('orders', [
  ['recovered-orders', 'Recovered orders', count(totals.recovered.orders)],
  ['recovered-revenue', 'Recovered revenue', revenue(totals.recovered.revenue)],
  ['influenced-orders', 'Influenced orders', count(totals.influenced.orders)],
  ['influenced-revenue', 'Influenced revenue', revenue(totals.influenced.revenue)],
])}
<p class="muted">Recovered: paid with the cart or checkout a flow emailed about. Influenced: paid by the same contact within the store's window after a click, when not recovered. Never both.</p>
<h2 id="flows-heading">Flows</h2>
${flows}
${activitySection(overview)}`;
  return page(store.name, body);
};

/**
 * The flow page's own policy: the back office's, plus images over https in the previews (an email's pictures are
 * what a merchant checks); the previews are sandboxed frames (no script, no same origin) written from `srcdoc`.
 */
export const FLOW_PAGE_HEADERS: Readonly<Record<string, string>> = {
  ...PAGE_HEADERS,
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; img-src https: data:; form-action 'self'; frame-ancestors 'none'",
};

const when = (epochMs: number) => escapeHtml(new Date(epochMs).toISOString().replace('T', ' ').slice(0, 16));

const stepLine = (step: FlowDetail['flow']['steps'][number]) => {
  switch (step.type) {
    case 'wait':
      return `Wait ${escapeHtml(duration(step.seconds))}`;
    case 'email':
      return `Email <q>${escapeHtml(step.subject)}</q> from ${escapeHtml(step.from.email)}`;
    case 'exit_if':
      return 'Exit if the condition holds';
  }
};

/** 90 → `1 min 30 s`, 3600 → `1 h`, 86400 → `1 d`. */
const duration = (seconds: number) => {
  const parts: string[] = [];
  let rest = seconds;
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3_600],
    ['min', 60],
    ['s', 1],
  ] as const) {
    const n = Math.floor(rest / size);
    if (n > 0) parts.push(`${n} ${unit}`);
    rest -= n * size;
  }
  return parts.join(' ') || '0 s';
};

/** A rendered email: its subject, its HTML at desktop and mobile widths (sandboxed frames), its text part. */
const renderedParts = (stepId: string, rendered: Exclude<EmailPreview['rendered'], { error: string }>) => {
  const frames =
    rendered.html === undefined
      ? ''
      : `<div class="frames">
<figure><figcaption>Desktop (600 px)</figcaption><iframe title="Desktop preview of step ${escapeHtml(stepId)}" sandbox="" width="600" height="520" srcdoc="${escapeHtml(rendered.html)}"></iframe></figure>
<figure><figcaption>Mobile (375 px)</figcaption><iframe title="Mobile preview of step ${escapeHtml(stepId)}" sandbox="" width="375" height="520" srcdoc="${escapeHtml(rendered.html)}"></iframe></figure>
</div>`;
  const text =
    rendered.text === undefined
      ? ''
      : `<details><summary>Text part</summary><pre>${escapeHtml(rendered.text)}</pre></details>`;
  return `<p class="subject">Subject: <strong>${escapeHtml(rendered.subject)}</strong></p>
${frames}
${text}`;
};

const previewSection = (detail: FlowDetail) => {
  if (!detail.preview) {
    return '<p id="preview">The store has no trigger of this kind yet: the emails are previewed here for the first one.</p>';
  }
  const { source, emails } = detail.preview;
  const parts = emails
    .map(({ stepId, rendered }) => {
      if ('error' in rendered) {
        return `<h3>Step <code>${escapeHtml(stepId)}</code></h3>\n<p class="error">The templates do not render for this run: ${escapeHtml(rendered.error)}</p>`;
      }
      return `<section class="email" data-step="${escapeHtml(stepId)}"><h3>Step <code>${escapeHtml(stepId)}</code></h3>
${renderedParts(stepId, rendered)}</section>`;
    })
    .join('\n');
  const whose = source.runId
    ? `As the latest run would get them: ${escapeHtml(source.email)}, entered ${when(source.at)} UTC`
    : `As ${escapeHtml(source.email)} would get them, for the latest ${escapeHtml(source.trigger.kind)} trigger of the store (${when(source.at)} UTC)`;
  return `<p class="muted" id="preview">${whose} (unsubscribe links point nowhere in a preview).</p>
${parts}`;
};

/** `GET /back-office/stores/{storeId}/flows/{flowId}`: one flow, its funnel per step, its latest runs and previews. */
export const flowDetailPage = (store: { storeId: string; name: string }, detail: FlowDetail): Reply => {
  const { flow, stats } = detail;
  const storeBase = `/back-office/stores/${encodeURIComponent(store.storeId)}`;
  const base = `${storeBase}/flows/${encodeURIComponent(flow.id)}`;
  const stepStats = new Map(stats.steps.map((step) => [step.stepId, step]));
  const steps = flow.steps
    .map((step) => {
      const s = stepStats.get(step.id);
      const numbers = s
        ? `<td class="n">${count(s.emailed)}</td><td class="n">${count(s.delivered)}</td><td class="n">${count(s.opened)}</td><td class="n">${count(s.clicked)}</td><td class="n">${count(s.recovered.orders)}</td><td class="n">${revenue(s.recovered.revenue)}</td>`
        : '<td class="n">—</td><td class="n">—</td><td class="n">—</td><td class="n">—</td><td class="n">—</td><td class="n">—</td>';
      const edit =
        step.type === 'email'
          ? ` <a href="${escapeHtml(`${base}/steps/${encodeURIComponent(step.id)}`)}">Edit<span class="visually-hidden"> step ${escapeHtml(step.id)}</span></a>`
          : '';
      return `<tr data-step="${escapeHtml(step.id)}"><th scope="row"><code>${escapeHtml(step.id)}</code></th><td>${stepLine(step)}${edit}</td>${numbers}</tr>`;
    })
    .join('\n');
  const recent = detail.recent
    .map(({ evaluation, run }) => {
      const outcome =
        evaluation.outcome === 'entered'
          ? `Entered${run ? ` · run ${escapeHtml(run.status)}` : ''}`
          : `Skipped: ${escapeHtml(evaluation.reason ?? 'unknown')}`;
      return `<tr><td>${when(evaluation.at)}</td><td>${escapeHtml(evaluation.email ?? '—')}</td><td>${escapeHtml(evaluation.triggerKind)}</td><td>${outcome}</td></tr>`;
    })
    .join('\n');
  const toggle = `<form method="post" action="${escapeHtml(`${base}/state?enabled=${flow.enabled ? 'false' : 'true'}`)}">
<button type="submit">${flow.enabled ? 'Disable' : 'Enable'} this flow</button>
</form>`;
  const body = `<nav aria-label="Breadcrumb"><a href="/back-office">Back office</a> › <a href="${escapeHtml(storeBase)}">${escapeHtml(store.name)}</a> › ${escapeHtml(flow.name)}</nav>
<h1>${escapeHtml(flow.name)}</h1>
<dl class="cards" id="flow-facts">
<div data-key="state"><dt>State</dt><dd>${flow.enabled ? 'Enabled' : 'Disabled'}</dd></div>
<div data-key="trigger"><dt>Trigger</dt><dd><code>${escapeHtml(flow.trigger)}</code></dd></div>
<div data-key="consent"><dt>Consent</dt><dd>${escapeHtml(flow.consent)}</dd></div>
<div data-key="entered"><dt>Entered</dt><dd>${count(stats.entered)}</dd></div>
</dl>
${toggle}
<form class="range" method="get" action="${escapeHtml(base)}">
<label for="from">From<input type="date" id="from" name="from" value="${escapeHtml(stats.from)}" required></label>
<label for="to">To<input type="date" id="to" name="to" value="${escapeHtml(stats.to)}" required></label>
<button type="submit">Show</button>
</form>
<h2 id="steps-heading">Steps</h2>
<div class="scroll"><table id="steps">
<caption>Each step, and each email step's funnel from ${escapeHtml(stats.from)} to ${escapeHtml(stats.to)}</caption>
<thead><tr><th scope="col">Step</th><th scope="col">What it does</th><th scope="col" class="n">Emailed</th><th scope="col" class="n">Delivered</th><th scope="col" class="n">Opened</th><th scope="col" class="n">Clicked</th><th scope="col" class="n">Recovered orders</th><th scope="col" class="n">Recovered revenue</th></tr></thead>
<tbody>
${steps}
</tbody>
</table></div>
<h2 id="runs-heading">Latest evaluations</h2>
${
  recent
    ? `<div class="scroll"><table id="runs"><caption>Who entered, or was skipped and why, newest first</caption>
<thead><tr><th scope="col">When (UTC)</th><th scope="col">Email</th><th scope="col">Trigger</th><th scope="col">Outcome</th></tr></thead>
<tbody>
${recent}
</tbody>
</table></div>`
    : '<p id="runs">No trigger has reached this flow yet.</p>'
}
<h2 id="preview-heading">Email preview</h2>
${previewSection(detail)}`;
  return {
    statusCode: 200,
    headers: FLOW_PAGE_HEADERS,
    body: htmlDocument(`${flow.name} · Storeflow`, `${STYLE}${PREVIEW_STYLE}`, body),
  };
};

const PREVIEW_STYLE = `
  .frames { display: flex; flex-wrap: wrap; gap: 1rem; align-items: flex-start; }
  figure { margin: 0; }
  figcaption { color: #52606d; font-size: .9rem; }
  iframe { border: 1px solid #cbd2d9; border-radius: 4px; background: #fff; max-width: 100%; }
  pre { white-space: pre-wrap; background: #f5f7fa; padding: .75rem; }
  .error { color: #9b1c1c; }
  form + form { margin-top: 1rem; }
`;

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

const field = (id: string, label: string, control: string, hint?: string) =>
  `<div class="field"><label for="${id}">${label}</label>${hint ? `<span class="hint" id="${id}-hint">${hint}</span>` : ''}${control}</div>`;

/** `GET /back-office/stores/{storeId}/new-flow`: pick a preset and its sender; `error` after a refused post. */
export const newFlowPage = (
  store: { storeId: string; name: string },
  presets: readonly { preset: string; name: string; description: string }[],
  fields: NewFlowFields = {},
  error?: string,
): Reply => {
  const storeBase = `/back-office/stores/${encodeURIComponent(store.storeId)}`;
  const chosen = fields.preset ?? presets[0]?.preset;
  const choices = presets
    .map(
      (p, i) =>
        `<div><input type="radio" name="preset" id="preset-${i}" value="${escapeHtml(p.preset)}"${chosen === p.preset ? ' checked' : ''}> <label for="preset-${i}"><strong>${escapeHtml(p.name)}</strong></label><br><span class="hint">${escapeHtml(p.description)}</span></div>`,
    )
    .join('\n');
  const body = `<nav aria-label="Breadcrumb"><a href="/back-office">Back office</a> › <a href="${escapeHtml(storeBase)}">${escapeHtml(store.name)}</a> › New flow</nav>
<h1>New flow from a preset</h1>
${error ? `<p role="alert" id="form-error">${escapeHtml(error)}</p>` : ''}
<form method="post" action="${escapeHtml(`${storeBase}/new-flow`)}">
<fieldset><legend>Preset</legend>
${choices}
</fieldset>
${field('from_email', 'From address', `<input type="email" id="from_email" name="from_email" required value="${escapeHtml(fields.from_email ?? '')}" aria-describedby="from_email-hint">`, 'An address at one of the store’s verified sending domains.')}
${field('from_name', 'From name', `<input type="text" id="from_name" name="from_name" value="${escapeHtml(fields.from_name ?? store.name)}">`)}
${field('name', 'Flow name', `<input type="text" id="name" name="name" value="${escapeHtml(fields.name ?? '')}" aria-describedby="name-hint">`, 'Optional: the preset’s name otherwise.')}
<p class="hint">The flow is created disabled: look at its emails, then enable it on its page.</p>
<button type="submit">Create the flow</button>
</form>`;
  return {
    statusCode: error ? 400 : 200,
    headers: PAGE_HEADERS,
    body: htmlDocument(`New flow · ${store.name} · Storeflow`, STYLE, body),
  };
};

/** `GET|POST /back-office/stores/{storeId}/flows/{flowId}/steps/{stepId}`: an email step's form and its preview. */
export const stepEditPage = (store: { storeId: string; name: string }, edit: StepEdit): Reply => {
  const storeBase = `/back-office/stores/${encodeURIComponent(store.storeId)}`;
  const flowBase = `${storeBase}/flows/${encodeURIComponent(edit.flow.id)}`;
  const action = `${flowBase}/steps/${encodeURIComponent(edit.step.id)}`;
  const { fields } = edit;
  const described = edit.error ? ' aria-describedby="form-error"' : '';
  let preview: string;
  if (edit.preview && 'error' in edit.preview.email.rendered) {
    preview = `<p class="error" id="preview">The templates do not render for ${escapeHtml(edit.preview.source.email)}: ${escapeHtml(edit.preview.email.rendered.error)}</p>`;
  } else if (edit.preview && !('error' in edit.preview.email.rendered)) {
    preview = `<p class="muted" id="preview">As ${escapeHtml(edit.preview.source.email)} would get it (${escapeHtml(edit.preview.source.trigger.kind)}, ${when(edit.preview.source.at)} UTC); unsubscribe links point nowhere in a preview.</p>
<section class="email" data-step="${escapeHtml(edit.step.id)}">${renderedParts(edit.step.id, edit.preview.email.rendered)}</section>`;
  } else if (edit.error) {
    preview = '<p id="preview">Fix the error above to see the preview.</p>';
  } else {
    preview = '<p id="preview">The store has no trigger of this kind yet: the preview appears with the first one.</p>';
  }
  const body = `<nav aria-label="Breadcrumb"><a href="/back-office">Back office</a> › <a href="${escapeHtml(storeBase)}">${escapeHtml(store.name)}</a> › <a href="${escapeHtml(flowBase)}">${escapeHtml(edit.flow.name)}</a> › Step ${escapeHtml(edit.step.id)}</nav>
<h1>Email step <code>${escapeHtml(edit.step.id)}</code></h1>
<p class="muted">Liquid templates (docs/flows.md, "Template variables"). Preview renders your changes without saving them.</p>
${edit.error ? `<p role="alert" id="form-error">${escapeHtml(edit.error)}</p>` : ''}
<form method="post" action="${escapeHtml(action)}">
${field('subject', 'Subject', `<input type="text" id="subject" name="subject" value="${escapeHtml(fields.subject)}" size="80"${described}>`)}
${field('preheader', 'Preheader', `<input type="text" id="preheader" name="preheader" value="${escapeHtml(fields.preheader ?? '')}" size="80">`)}
${field('html', 'HTML body', `<textarea id="html" name="html" rows="16" cols="100">${escapeHtml(fields.html ?? '')}</textarea>`)}
${field('text', 'Text body', `<textarea id="text" name="text" rows="8" cols="100">${escapeHtml(fields.text ?? '')}</textarea>`)}
<button type="submit" name="action" value="preview">Preview</button>
<button type="submit" name="action" value="save">Save</button>
</form>
<h2 id="preview-heading">Preview</h2>
${preview}`;
  return {
    statusCode: edit.error ? 400 : 200,
    headers: FLOW_PAGE_HEADERS,
    body: htmlDocument(`Step ${edit.step.id} · ${edit.flow.name} · Storeflow`, `${STYLE}${PREVIEW_STYLE}`, body),
  };
};

const attemptText = (attempt: WebhookView['deliveries'][number]['attempts'][number]) =>
  `${when(attempt.at)} ${attempt.outcome}${attempt.statusCode !== undefined ? ` (HTTP ${attempt.statusCode})` : ''}${attempt.error ? `: ${attempt.error}` : ''}`;

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
    : '<p id="imports">No import yet. Import contacts with <code>POST /api/v1/batch/customers</code> (docs/contacts.md).</p>';
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

/** `GET /back-office/stores/{storeId}/sending`: the store's bulk batches with their counts. */
export const sendingPage = (
  store: { storeId: string; name: string },
  view: { rows: readonly BatchRow[]; nextCursor?: string },
): Reply => {
  const storeBase = `/back-office/stores/${encodeURIComponent(store.storeId)}`;
  const rows = view.rows
    .map(
      ({ batch, status, pending }) =>
        `<tr data-batch="${escapeHtml(batch.id)}"><td>${when(batch.createdAt)}</td><th scope="row"><a href="${escapeHtml(`${storeBase}/sending/${encodeURIComponent(batch.id)}`)}">${escapeHtml(batch.subject)}</a></th><td data-status="${status}">${status}</td><td class="n">${count(batch.totalAccepted)}</td><td class="n">${count(batch.totalRejected)}</td><td class="n">${count(batch.sent)}</td><td class="n">${count(batch.failed)}</td><td class="n">${count(pending)}</td></tr>`,
    )
    .join('\n');
  const table = view.rows.length
    ? `<div class="scroll"><table id="batches"><caption>Bulk sends, newest first</caption>
<thead><tr><th scope="col">Created (UTC)</th><th scope="col">Subject</th><th scope="col">Status</th><th scope="col" class="n">Accepted</th><th scope="col" class="n">Rejected</th><th scope="col" class="n">Sent</th><th scope="col" class="n">Failed</th><th scope="col" class="n">Pending</th></tr></thead>
<tbody>
${rows}
</tbody>
</table></div>`
    : '<p id="batches">No bulk send yet (<code>POST /api/v1/sending</code> on the sending host, docs/sending.md).</p>';
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
<h1>${escapeHtml(batch.subject)}</h1>
${cards('batch-counts', [
  ['status', 'Status', escapeHtml(batch.status)],
  ['accepted', 'Accepted', count(batch.totalAccepted)],
  ['rejected', 'Rejected', count(batch.totalRejected)],
  ['sent', 'Sent', count(batch.sent)],
  ['failed', 'Failed', count(batch.failed)],
  ['pending', 'Pending', count(batch.pending)],
])}
<p class="muted">From ${escapeHtml(batch.from.email)} · batch <code>${escapeHtml(batch.id)}</code> · ${count(batch.chunksDone)} of ${count(batch.chunks)} chunks done. Delivery, opens and clicks of its emails are counted in the overview (docs/attribution.md).</p>
<h2 id="recipients-heading">Recipients not sent</h2>
${table}`;
  return { statusCode: 200, headers: PAGE_HEADERS, body: htmlDocument(`${batch.subject} · Storeflow`, STYLE, body) };
};
