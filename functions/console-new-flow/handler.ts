/**
 * `GET|POST {base_url}/back-office/stores/{storeId}/new-flow`: the console's new-flow form (issue 17). The post creates
 * the flow from the chosen preset, disabled, and answers `303` to its page; a refused one shows the form again with
 * the reason (400). Refused cross-site (`Origin`).
 */

import { createFromPreset } from '#shared/domain/console/flow-editor.ts';
import { presetSummaries } from '#shared/domain/flows/presets/index.ts';
import { htmlPage, PAGE_HEADERS } from '#shared/http/back-office-pages.ts';
import { newFlowPage } from '#shared/http/console/flow-pages.ts';
import { openConsoleStore } from '#shared/http/console-access.ts';
import { httpRoute } from '#shared/http/route.ts';
import { ConsoleStorePath, NewFlowForm } from '#shared/http/route-inputs.ts';
import { isSameOrigin } from '#shared/http/same-origin.ts';
import { manageFlowDeps } from '#shared/wiring/flows.ts';

export const handler = httpRoute({
  api: 'backOffice',
  auth: 'none',
  path: ConsoleStorePath,
  form: true,
  body: NewFlowForm,
  handle: async ({ event, path, body }) => {
    const posted = event.requestContext.http.method === 'POST';
    if (posted && !isSameOrigin(event))
      return htmlPage(403, 'Cross-site request refused', 'Create flows from the console.');
    const opened = await openConsoleStore(event, path.storeId);
    if ('refused' in opened) return opened.refused;
    const { store } = opened;
    if (!posted) return newFlowPage(store, presetSummaries());
    const outcome = await createFromPreset(manageFlowDeps(), store.storeId, body);
    if ('refused' in outcome) return newFlowPage(store, presetSummaries(), body, outcome.refused);
    const location = `/back-office/stores/${encodeURIComponent(store.storeId)}/flows/${encodeURIComponent(outcome.done.id)}`;
    return { statusCode: 303, headers: { ...PAGE_HEADERS, location }, body: '' };
  },
});
