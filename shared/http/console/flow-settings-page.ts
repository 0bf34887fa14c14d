/** A flow's settings form: its name, entry conditions (JSON, the language beside it), waits and exit conditions. */
import { type FieldKey, type SettingsForm, WAIT_UNITS } from '#shared/domain/console/flow-settings.ts';
import { CONDITION_OPERATORS } from '#shared/domain/flows/flow.ts';
import { FLOW_RULES } from '#shared/domain/flows/flow-rules.ts';
import { escapeHtml, htmlDocument, PAGE_HEADERS } from '#shared/http/back-office-pages.ts';
import type { Reply } from '#shared/http/reply.ts';
import { duration, STYLE, storeBase } from './layout.ts';

const SETTINGS_STYLE = `
  .inline { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: end; }
  .inline label { display: flex; flex-direction: column; font-size: .9rem; color: #3e4c59; }
  select { font: inherit; padding: .3rem .5rem; }
  [aria-invalid=true] { border: 2px solid #9b1c1c; }
  .field-error { color: #9b1c1c; font-weight: 600; }
  details.language { max-width: 48rem; margin: .25rem 0 1rem; }
  details.language code { background: #f5f7fa; padding: 0 .2rem; }
  pre { white-space: pre-wrap; background: #f5f7fa; padding: .75rem; }
`;

/** `aria-describedby` and `aria-invalid` of a control: its hint, and its error when it has one. */
const described = (id: string, hint: boolean, error: string | undefined) => {
  const ids = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return `${ids ? ` aria-describedby="${ids}"` : ''}${error ? ' aria-invalid="true"' : ''}`;
};

const errorOf = (id: string, error: string | undefined) =>
  error ? `<span class="field-error" id="${id}-error">${escapeHtml(error)}</span>` : '';

const LANGUAGE = `<details class="language" open><summary>The condition language</summary>
<ul>
<li>A group is <code>{"match": "all" | "any", "conditions": [ … ]}</code>: 1 to ${FLOW_RULES.conditionsPerGroup} members, each a condition or a group; groups nest at most ${FLOW_RULES.groupDepth} levels.</li>
<li>A condition is <code>{"field": "…", "op": "…", "value": …}</code>. The field starts with <code>event.</code> (the trigger: <code>event.total</code>, <code>event.status</code>, <code>event.product_ids</code>…), <code>contact.</code> (<code>contact.tags</code>, <code>contact.country</code>, <code>contact.order_count</code>…), <code>custom.</code> (flow/notify’s data) or <code>activity.</code> (<code>activity.order_paid_since_trigger</code>…).</li>
<li>Operators: ${CONDITION_OPERATORS.map((op) => `<code>${op}</code>`).join(', ')}. <code>greater_than</code> and <code>less_than</code> take a number; <code>exists</code> and <code>not_exists</code> take no value.</li>
</ul>
<p>Only orders over 50 from a VIP:</p>
<pre>{"match": "all", "conditions": [
  {"field": "event.total", "op": "greater_than", "value": 50},
  {"field": "contact.tags", "op": "contains", "value": "vip"}
]}</pre>
</details>`;

const units = (chosen: string) =>
  WAIT_UNITS.map(([unit]) => `<option value="${unit}"${unit === chosen ? ' selected' : ''}>${unit}</option>`).join('');

/** `GET|POST /back-office/stores/{storeId}/flows/{flowId}/settings`: the form, as saved or as typed with its errors. */
export const flowSettingsPage = (store: { storeId: string; name: string }, form: SettingsForm): Reply => {
  const { flow, fields, refused } = form;
  const flowBase = `${storeBase(store.storeId)}/flows/${encodeURIComponent(flow.id)}`;
  const action = `${flowBase}/settings`;
  const errorFor = (key: FieldKey) => refused?.byField[key];
  let summary = '';
  if (refused?.stale) {
    summary = `<div role="alert" id="form-error"><p>${escapeHtml(refused.messages[0])}</p><p><a href="${escapeHtml(action)}">Reload the settings</a></p></div>`;
  } else if (refused) {
    summary = `<div role="alert" id="form-error"><p>Nothing was saved:</p><ul>${refused.messages.map((m) => `<li>${escapeHtml(m)}</li>`).join('')}</ul></div>`;
  }
  const steps = flow.steps
    .map((step, index) => {
      const key = `step-${step.id}`;
      const error = errorFor(`step:${step.id}`);
      const legend = `<legend>Step ${index + 1}: ${step.type === 'wait' ? 'wait' : 'exit if'}</legend>`;
      if (step.type === 'wait') {
        const wait = fields.waits[step.id] ?? { amount: '', unit: 'minutes' };
        const id = `wait-${step.id}`;
        return `<fieldset id="${escapeHtml(key)}">${legend}
<p class="hint" id="${escapeHtml(id)}-hint">Saved: ${escapeHtml(duration(step.seconds))}. From 1 minute to 90 days; a change applies to runs that reach this wait after it is saved.</p>
<div class="inline">
<label for="${escapeHtml(id)}-amount">Duration<input type="number" id="${escapeHtml(id)}-amount" name="wait.${escapeHtml(step.id)}.amount" value="${escapeHtml(wait.amount)}" min="0" step="any" required${described(id, true, error)}></label>
<label for="${escapeHtml(id)}-unit">Unit<select id="${escapeHtml(id)}-unit" name="wait.${escapeHtml(step.id)}.unit">${units(wait.unit)}</select></label>
</div>
${errorOf(id, error)}</fieldset>`;
      }
      if (step.type === 'exit_if') {
        const id = `exit-${step.id}`;
        return `<fieldset id="${escapeHtml(key)}">${legend}
<div class="field"><label for="${escapeHtml(id)}">Exit condition</label><span class="hint" id="${escapeHtml(id)}-hint">A condition group as JSON: the run ends here when it holds.</span>
<textarea id="${escapeHtml(id)}" name="exit.${escapeHtml(step.id)}" rows="8" cols="100" spellcheck="false"${described(id, true, error)}>${escapeHtml(fields.exits[step.id] ?? '')}</textarea>
${errorOf(id, error)}</div></fieldset>`;
      }
      return '';
    })
    .filter(Boolean)
    .join('\n');
  const nameError = errorFor('name');
  const entryError = errorFor('entry');
  const body = `<nav aria-label="Breadcrumb"><a href="/back-office">Back office</a> › <a href="${escapeHtml(storeBase(store.storeId))}">${escapeHtml(store.name)}</a> › <a href="${escapeHtml(flowBase)}">${escapeHtml(flow.name)}</a> › Settings</nav>
<h1>Settings of ${escapeHtml(flow.name)}</h1>
<p class="muted">Checked as <code>PUT /api/v1/flows/${escapeHtml(flow.id)}</code> checks them, and saved only if nobody changed the flow since this page was read (revision ${escapeHtml(flow.revision)}).</p>
${summary}
<form method="post" action="${escapeHtml(action)}">
<input type="hidden" name="revision" value="${escapeHtml(fields.revision)}">
<div class="field"><label for="name">Name</label>
<input type="text" id="name" name="name" value="${escapeHtml(fields.name)}" size="60" maxlength="${FLOW_RULES.nameMaxChars}" required${described('name', false, nameError)}>
${errorOf('name', nameError)}</div>
<div class="field"><label for="entry">Entry conditions</label><span class="hint" id="entry-hint">A condition group as JSON, checked when a <code>${escapeHtml(flow.trigger)}</code> trigger arrives: who it does not hold for is skipped (<code>condition_false</code>). Empty: every trigger of the kind enters.</span>
<textarea id="entry" name="entry" rows="10" cols="100" spellcheck="false"${described('entry', true, entryError)}>${escapeHtml(fields.entry)}</textarea>
${errorOf('entry', entryError)}</div>
${LANGUAGE}
${steps ? `<h2 id="steps-heading">Waits and exit conditions</h2>\n${steps}` : ''}
<p><button type="submit">Save</button> <a href="${escapeHtml(flowBase)}">Cancel</a></p>
</form>`;
  return {
    statusCode: refused?.stale ? 409 : refused ? 400 : 200,
    headers: PAGE_HEADERS,
    body: htmlDocument(`Settings · ${flow.name} · Storeflow`, `${STYLE}${SETTINGS_STYLE}`, body),
  };
};
