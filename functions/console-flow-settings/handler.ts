/**
 * `GET|POST {base_url}/back-office/stores/{storeId}/flows/{flowId}/settings`: the console's flow settings form (issue
 * 17): name, entry conditions, waits and exit conditions. A post is checked as `PUT /api/v1/flows/{flowId}` checks it
 * and saved on the revision the form was read at (then `303` to the flow page); refused, the form comes back as typed
 * with the reasons beside the fields (400), or with "changed meanwhile" (409). Refused cross-site (`Origin`).
 */

import { editSettings } from '#shared/domain/console/flow-settings.ts';
import { htmlPage, PAGE_HEADERS } from '#shared/http/back-office-pages.ts';
import { flowSettingsPage } from '#shared/http/console/flow-settings-page.ts';
import { storeBase } from '#shared/http/console/layout.ts';
import { openConsoleStore } from '#shared/http/console-access.ts';
import { httpRoute } from '#shared/http/route.ts';
import { ConsoleFlowPath, FlowSettingsForm } from '#shared/http/route-inputs.ts';
import { isSameOrigin } from '#shared/http/same-origin.ts';
import { manageFlowDeps } from '#shared/wiring/flows.ts';

export const handler = httpRoute({
  api: 'backOffice',
  auth: 'none',
  path: ConsoleFlowPath,
  form: true,
  body: FlowSettingsForm,
  handle: async ({ event, path, body }) => {
    const posted = event.requestContext.http.method === 'POST';
    if (posted && !isSameOrigin(event))
      return htmlPage(403, 'Cross-site request refused', 'Edit flows from the console.');
    const opened = await openConsoleStore(event, path.storeId);
    if ('refused' in opened) return opened.refused;
    const { store } = opened;
    const outcome = await editSettings(
      manageFlowDeps(),
      store.storeId,
      path.flowId,
      posted ? { kind: 'save', fields: body } : { kind: 'show' },
    );
    if (!('saved' in outcome)) return flowSettingsPage(store, outcome);
    const location = `${storeBase(store.storeId)}/flows/${encodeURIComponent(outcome.saved.id)}`;
    return { statusCode: 303, headers: { ...PAGE_HEADERS, location }, body: '' };
  },
});
