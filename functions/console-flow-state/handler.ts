/**
 * `POST {base_url}/back-office/stores/{storeId}/flows/{flowId}/state?enabled=true|false`: the flow page's switch.
 * Refused cross-site (the `Origin` check, beside the session cookie's SameSite=Lax); answers `303` back to the page.
 */

import { setFlowEnabled } from '#shared/domain/flows/manage-flows.ts';
import { htmlPage, PAGE_HEADERS } from '#shared/http/back-office-pages.ts';
import { openConsoleStore } from '#shared/http/console-access.ts';
import { httpRoute } from '#shared/http/route.ts';
import { ConsoleFlowPath, FlowStateQuery } from '#shared/http/route-inputs.ts';
import { isSameOrigin } from '#shared/http/same-origin.ts';
import { manageFlowDeps } from '#shared/wiring/flows.ts';

export const handler = httpRoute({
  api: 'backOffice',
  auth: 'none',
  path: ConsoleFlowPath,
  query: FlowStateQuery,
  handle: async ({ event, path, query }) => {
    if (!isSameOrigin(event)) return htmlPage(403, 'Cross-site request refused', 'Change the flow from its page.');
    const opened = await openConsoleStore(event, path.storeId);
    if ('refused' in opened) return opened.refused;
    const flow = await setFlowEnabled(manageFlowDeps(), opened.store.storeId, path.flowId, query.enabled === 'true');
    const location = `/back-office/stores/${encodeURIComponent(opened.store.storeId)}/flows/${encodeURIComponent(flow.id)}`;
    return { statusCode: 303, headers: { ...PAGE_HEADERS, location }, body: '' };
  },
});
