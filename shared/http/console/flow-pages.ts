/** A flow's page (funnel per step, latest evaluations, previews), a new flow from a preset, and an email step's editor. */

import type { EmailPreview, FlowDetail } from '#shared/domain/console/flow-detail.ts';
import type { NewFlowFields, StepEdit } from '#shared/domain/console/flow-editor.ts';
import { runOutcomeText } from '#shared/domain/console/run-outcome.ts';
import type { ConditionGroup } from '#shared/domain/flows/flow.ts';
import { flatSteps } from '#shared/domain/flows/split.ts';
import { escapeHtml, htmlDocument, PAGE_HEADERS } from '#shared/http/back-office-pages.ts';
import type { Reply } from '#shared/http/reply.ts';
import { count, duration, field, revenue, STYLE, when } from './layout.ts';

/**
 * The flow page's own policy: the back office's, plus images over https in the previews (an email's pictures are
 * what a merchant checks); the previews are sandboxed frames (no script, no same origin) written from `srcdoc`.
 */
export const FLOW_PAGE_HEADERS: Readonly<Record<string, string>> = {
  ...PAGE_HEADERS,
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; img-src https: data:; form-action 'self'; frame-ancestors 'none'",
};

/** A condition group as one line of text: `event.total greater_than 50 and (contact.tags contains "vip" or …)`. */
export const conditionText = (group: ConditionGroup): string =>
  group.conditions
    .map((member) =>
      'match' in member
        ? `(${conditionText(member)})`
        : `${member.field} ${member.op}${member.value === undefined ? '' : ` ${JSON.stringify(member.value)}`}`,
    )
    .join(group.match === 'all' ? ' and ' : ' or ');

const stepLine = (step: FlowDetail['flow']['steps'][number]) => {
  switch (step.type) {
    case 'wait':
      return `Wait ${escapeHtml(duration(step.seconds))}`;
    case 'email':
      return `Email <q>${escapeHtml(step.subject)}</q> from ${escapeHtml(step.from.email)}`;
    case 'exit_if':
      return `Exit if <code>${escapeHtml(conditionText(step.condition))}</code>`;
    case 'split':
      return `A/B split: ${step.branches.map((b) => `<code>${escapeHtml(b.id)}</code> ${b.percent} %`).join(', ')}`;
  }
};

/** Why an evaluation skipped the flow; for `condition_false`, the deciding condition and the value seen. */
const skipped = (evaluation: FlowDetail['recent'][number]['evaluation']) => {
  const reason = `Skipped: ${escapeHtml(evaluation.reason ?? 'unknown')}`;
  const detail = evaluation.detail;
  if (evaluation.reason !== 'condition_false' || typeof detail?.field !== 'string') return reason;
  const expected = detail.expected === undefined ? '' : ` ${JSON.stringify(detail.expected)}`;
  const seen = detail.value === undefined ? 'nothing' : JSON.stringify(detail.value);
  return `${reason} <span class="why">(<code>${escapeHtml(`${detail.field} ${String(detail.op)}${expected}`)}</code> does not hold: the value was ${escapeHtml(seen)})</span>`;
};

/** A rendered email: its subject, its HTML at desktop and mobile widths (sandboxed frames), its text part. */
const renderedParts = (label: string, rendered: Exclude<EmailPreview['rendered'], { error: string }>) => {
  const frames =
    rendered.html === undefined
      ? ''
      : `<div class="frames">
<figure><figcaption>Desktop (600 px)</figcaption><iframe title="Desktop preview of ${escapeHtml(label)}" sandbox="" width="600" height="520" srcdoc="${escapeHtml(rendered.html)}"></iframe></figure>
<figure><figcaption>Mobile (375 px)</figcaption><iframe title="Mobile preview of ${escapeHtml(label)}" sandbox="" width="375" height="520" srcdoc="${escapeHtml(rendered.html)}"></iframe></figure>
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
  const positions = new Map(flatSteps(detail.flow.steps).map((step, index) => [step.id, index + 1]));
  const parts = emails
    .map(({ stepId, rendered }) => {
      const label = `Step ${positions.get(stepId) ?? '?'}`;
      if ('error' in rendered) {
        return `<h3>${label}</h3>\n<p class="error">The templates do not render for this run: ${escapeHtml(rendered.error)}</p>`;
      }
      return `<section class="email" data-step="${escapeHtml(stepId)}"><h3>${label}</h3>
${renderedParts(label, rendered)}</section>`;
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
  // Branch steps are listed after their split, each with its own figures and edit link.
  // Waits and exit conditions at the top level are edited on the settings page; those inside a split's branches and
  // the split itself are not (yet): no link for them, rather than one to a place the settings page does not have.
  const onSettings = new Set(flow.steps.filter((s) => s.type === 'wait' || s.type === 'exit_if').map((s) => s.id));
  const steps = flatSteps(flow.steps)
    .map((step, index) => {
      const s = stepStats.get(step.id);
      const numbers = s
        ? `<td class="n">${count(s.emailed)}</td><td class="n">${count(s.delivered)}</td><td class="n">${count(s.opened)}</td><td class="n">${count(s.clicked)}</td><td class="n">${count(s.recovered.orders)}</td><td class="n">${revenue(s.recovered.revenue)}</td>`
        : '<td class="n">—</td><td class="n">—</td><td class="n">—</td><td class="n">—</td><td class="n">—</td><td class="n">—</td>';
      const editAt =
        step.type === 'email'
          ? `${base}/steps/${encodeURIComponent(step.id)}`
          : onSettings.has(step.id)
            ? `${base}/settings#step-${encodeURIComponent(step.id)}`
            : undefined;
      const edit = editAt
        ? ` <a href="${escapeHtml(editAt)}">Edit<span class="visually-hidden"> step ${index + 1}</span></a>`
        : '';
      return `<tr data-step="${escapeHtml(step.id)}"><th scope="row">Step ${index + 1}</th><td>${stepLine(step)}${edit}</td>${numbers}</tr>`;
    })
    .join('\n');
  const recent = detail.recent
    .map(({ evaluation, run }) => {
      const outcome =
        evaluation.outcome === 'entered'
          ? `Entered${run ? ` · run ${escapeHtml(runOutcomeText(run))}` : ''}`
          : skipped(evaluation);
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
<p id="entry">Entry conditions: ${flow.entry ? `<code>${escapeHtml(conditionText(flow.entry))}</code>` : 'none (every trigger of the kind enters)'}. <a href="${escapeHtml(`${base}/settings`)}">Edit name and conditions</a></p>
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
${experimentSection(stats)}
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

/** A flow with a split or a holdout: each group's figures and its difference against the baseline. */
const experimentSection = (stats: FlowDetail['stats']): string => {
  const experiment = stats.experiment;
  if (!experiment) return '';
  const perCurrency = (values: Readonly<Record<string, string | null>>) =>
    Object.entries(values)
      .map(([currency, value]) => `${escapeHtml(value ?? '—')} ${escapeHtml(currency)}`)
      .join('<br>') || '—';
  const groups = experiment.groups
    .map(
      (g) =>
        `<tr data-group="${escapeHtml(g.group)}"><th scope="row"><code>${escapeHtml(g.group)}</code></th><td class="n">${escapeHtml(String(g.percent))} %</td><td class="n">${count(g.entered)}</td><td class="n">${count(g.emailed)}</td><td class="n">${count(g.clicked)}</td><td class="n">${count(g.orders)}</td><td class="n">${perCurrency(g.revenuePerRecipient)}</td></tr>`,
    )
    .join('\n');
  const comparisons = experiment.comparisons
    .map(
      (c) =>
        `<li><code>${escapeHtml(c.group)}</code> − <code>${escapeHtml(c.against)}</code>: ${escapeHtml(c.difference ?? '—')} ${escapeHtml(c.currency)} per recipient${c.ci95 ? ` (95 % interval ${escapeHtml(c.ci95.low)} to ${escapeHtml(c.ci95.high)}${c.significant ? ', significant' : ''})` : ' (too few runs)'}</li>`,
    )
    .join('\n');
  return `<h2 id="experiment-heading">A/B groups</h2>
<div class="scroll"><table id="experiment">
<caption>Each group's runs, emails and the orders its contacts paid within the window after entry, mailed or not</caption>
<thead><tr><th scope="col">Group</th><th scope="col" class="n">Share</th><th scope="col" class="n">Entered</th><th scope="col" class="n">Emailed</th><th scope="col" class="n">Clicked</th><th scope="col" class="n">Orders</th><th scope="col" class="n">Revenue per recipient</th></tr></thead>
<tbody>
${groups}
</tbody>
</table></div>
${comparisons ? `<ul id="comparisons">${comparisons}</ul>` : ''}`;
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
  const position = flatSteps(edit.flow.steps).findIndex((s) => s.id === edit.step.id) + 1;
  if (edit.preview && 'error' in edit.preview.email.rendered) {
    preview = `<p class="error" id="preview">The templates do not render for ${escapeHtml(edit.preview.source.email)}: ${escapeHtml(edit.preview.email.rendered.error)}</p>`;
  } else if (edit.preview && !('error' in edit.preview.email.rendered)) {
    preview = `<p class="muted" id="preview">As ${escapeHtml(edit.preview.source.email)} would get it (${escapeHtml(edit.preview.source.trigger.kind)}, ${when(edit.preview.source.at)} UTC); unsubscribe links point nowhere in a preview.</p>
<section class="email" data-step="${escapeHtml(edit.step.id)}">${renderedParts(`step ${position}`, edit.preview.email.rendered)}</section>`;
  } else if (edit.error) {
    preview = '<p id="preview">Fix the error above to see the preview.</p>';
  } else {
    preview = '<p id="preview">The store has no trigger of this kind yet: the preview appears with the first one.</p>';
  }
  const body = `<nav aria-label="Breadcrumb"><a href="/back-office">Back office</a> › <a href="${escapeHtml(storeBase)}">${escapeHtml(store.name)}</a> › <a href="${escapeHtml(flowBase)}">${escapeHtml(edit.flow.name)}</a> › Step ${position}</nav>
<h1>Email step ${position}: ${escapeHtml(edit.step.subject)}</h1>
<p class="muted">Liquid templates: <code>{{ contact.first_name }}</code>, <code>{{ cart.line_items }}</code> and the other variables of the flow's kind. Preview renders your changes without saving them.</p>
${edit.error ? `<p role="alert" id="form-error">${escapeHtml(edit.error)}</p>` : ''}
<form method="post" action="${escapeHtml(action)}">
<input type="hidden" name="revision" value="${escapeHtml(fields.revision ?? edit.flow.revision)}">
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
    statusCode: edit.stale ? 409 : edit.error ? 400 : 200,
    headers: FLOW_PAGE_HEADERS,
    body: htmlDocument(`Step ${position} · ${edit.flow.name} · Storeflow`, `${STYLE}${PREVIEW_STYLE}`, body),
  };
};
