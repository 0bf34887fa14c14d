/**
 * `GET|POST {base_url}/back-office/stores/{storeId}/flows/{flowId}/settings`: the console's flow settings form (issue
 * 17): name, entry conditions, waits and exit conditions. A post is checked as `PUT /api/v1/flows/{flowId}` checks it
 * and saved on the revision the form was read at (then `303` to the flow page); refused, the form comes back as typed
 * with the reasons beside the fields (400), or with "changed meanwhile" (409). Refused cross-site (`Origin`).
 */

import { editSettings } from '#shared/domain/console/flow-settings.ts';
import { flowSettingsPage } from '#shared/http/console/flow-settings-page.ts';
import { storeBase } from '#shared/http/console/layout.ts';
import { openConsoleForm, seeOther } from '#shared/http/console-access.ts';
import { httpRoute } from '#shared/http/route.ts';
import { ConsoleFlowPath, FlowSettingsForm } from '#shared/http/route-inputs.ts';
import { manageFlowDeps } from '#shared/wiring/flows.ts';

export const handler = httpRoute({
  api: 'backOffice',
  auth: 'none',
  path: ConsoleFlowPath,
  form: true,
  body: FlowSettingsForm,
  handle: async ({ event, path, body }) => {
    const opened = await openConsoleForm(event, path.storeId, 'Edit flows from the console.');
    if ('refused' in opened) return opened.refused;
    const { store, posted } = opened;
    const outcome = await editSettings(
      manageFlowDeps(),
      store.storeId,
      path.flowId,
      posted ? { kind: 'save', fields: body } : { kind: 'show' },
    );
    if (!('saved' in outcome)) return flowSettingsPage(store, outcome);
    return seeOther(`${storeBase(store.storeId)}/flows/${encodeURIComponent(outcome.saved.id)}`);
  },
});
