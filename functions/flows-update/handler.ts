/** `PUT {base_url}/api/v1/flows/{flowId}`: replace the definition (`revision` for optimistic concurrency). */

import { assertOwnFlow, parseFlowUpdateRequest, updateFlow } from '#shared/domain/flows/manage-flows.ts';
import { FLOW_ROUTE } from '#shared/http/flow-routes.ts';
import { webhooksReply } from '#shared/http/responses.ts';
import { httpRoute } from '#shared/http/route.ts';
import { FlowPath } from '#shared/http/route-inputs.ts';
import { manageFlowDeps } from '#shared/wiring/flows.ts';

export const handler = httpRoute({
  path: FlowPath,
  ...FLOW_ROUTE,
  // Another store's flow answers 404 even to an invalid body: the flow is looked up before the body is read.
  found: ({ store, path }) => assertOwnFlow(manageFlowDeps(), store.storeId, path.flowId),
  body: parseFlowUpdateRequest,
  handle: async ({ store, body, path }) =>
    webhooksReply.ok(await updateFlow(manageFlowDeps(), store.storeId, path.flowId, body)),
});
