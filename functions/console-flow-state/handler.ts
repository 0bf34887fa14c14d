/**
 * `POST {base_url}/back-office/stores/{storeId}/flows/{flowId}/state?enabled=true|false`: the flow page's switch.
 * Refused cross-site (the `Origin` check, beside the session cookie's SameSite=Lax); answers `303` back to the page.
 */

import { setFlowEnabled } from '#shared/domain/flows/manage-flows.ts';
import { storeBase } from '#shared/http/console/layout.ts';
import { openConsoleForm, seeOther } from '#shared/http/console-access.ts';
import { httpRoute } from '#shared/http/route.ts';
import { ConsoleFlowPath, FlowStateQuery } from '#shared/http/route-inputs.ts';
import { manageFlowDeps } from '#shared/wiring/flows.ts';

export const handler = httpRoute({
  api: 'backOffice',
  auth: 'none',
  path: ConsoleFlowPath,
  query: FlowStateQuery,
  handle: async ({ event, path, query }) => {
    const opened = await openConsoleForm(event, path.storeId, 'Change the flow from its page.');
    if ('refused' in opened) return opened.refused;
    const flow = await setFlowEnabled(manageFlowDeps(), opened.store.storeId, path.flowId, query.enabled === 'true');
    return seeOther(`${storeBase(opened.store.storeId)}/flows/${encodeURIComponent(flow.id)}`);
  },
});
