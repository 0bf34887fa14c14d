/** `DELETE {base_url}/api/v1/flows/{flowId}`: remove a flow; its runs stop at their next step. */

import { deleteFlow } from '#shared/domain/flows/manage-flows.ts';
import { FLOW_ROUTE } from '#shared/http/flow-routes.ts';
import { webhooksReply } from '#shared/http/responses.ts';
import { httpRoute } from '#shared/http/route.ts';
import { FlowPath } from '#shared/http/route-inputs.ts';
import { manageFlowDeps } from '#shared/wiring/flows.ts';

export const handler = httpRoute({
  path: FlowPath,
  ...FLOW_ROUTE,
  handle: async ({ store, path }) => webhooksReply.ok(await deleteFlow(manageFlowDeps(), store.storeId, path.flowId)),
});
