/**
 * `GET|POST {base_url}/back-office/stores/{storeId}/new-flow`: the console's new-flow form. The post creates
 * the flow from the chosen preset, disabled, and answers `303` to its page; a refused one shows the form again with
 * the reason (400). Refused cross-site (`Origin`).
 */

import { createFromPreset } from '#shared/domain/console/flow-editor.ts';
import { presetSummaries } from '#shared/domain/flows/presets/index.ts';
import { newFlowPage } from '#shared/http/console/flow-pages.ts';
import { storeBase } from '#shared/http/console/layout.ts';
import { openConsoleForm, seeOther } from '#shared/http/console-access.ts';
import { httpRoute } from '#shared/http/route.ts';
import { ConsoleStorePath, NewFlowForm } from '#shared/http/route-inputs.ts';
import { manageFlowDeps } from '#shared/wiring/flows.ts';

export const handler = httpRoute({
  api: 'backOffice',
  auth: 'none',
  path: ConsoleStorePath,
  form: true,
  body: NewFlowForm,
  handle: async ({ event, path, body }) => {
    const opened = await openConsoleForm(event, path.storeId, 'Create flows from the console.');
    if ('refused' in opened) return opened.refused;
    const { store, posted } = opened;
    if (!posted) return newFlowPage(store, presetSummaries());
    const outcome = await createFromPreset(manageFlowDeps(), store.storeId, body);
    if ('refused' in outcome) return newFlowPage(store, presetSummaries(), body, outcome.refused);
    return seeOther(`${storeBase(store.storeId)}/flows/${encodeURIComponent(outcome.done.id)}`);
  },
});
