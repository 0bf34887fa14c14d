/** `GET {base_url}/api/v1/flows`: the store's flows, `{list, total}`, oldest first. */

import { listFlows } from '#shared/domain/flows/manage-flows.ts';
import { FLOW_ROUTE } from '#shared/http/flow-routes.ts';
import { webhooksReply } from '#shared/http/responses.ts';
import { httpRoute } from '#shared/http/route.ts';
import { manageFlowDeps } from '#shared/wiring/flows.ts';

export const handler = httpRoute({
  ...FLOW_ROUTE,
  handle: async ({ store }) => webhooksReply.ok(await listFlows(manageFlowDeps(), store.storeId)),
});
