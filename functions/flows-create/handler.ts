/** `POST {base_url}/api/v1/flows`: create a flow from a full definition, or from a preset (`{preset, from}`). */

import { createFlow, parseFlowCreateRequest } from '#shared/domain/flows/manage-flows.ts';
import { FLOW_ROUTE } from '#shared/http/flow-routes.ts';
import { webhooksReply } from '#shared/http/responses.ts';
import { httpRoute } from '#shared/http/route.ts';
import { manageFlowDeps } from '#shared/wiring/flows.ts';

export const handler = httpRoute({
  ...FLOW_ROUTE,
  body: parseFlowCreateRequest,
  handle: async ({ store, body }) => webhooksReply.ok(await createFlow(manageFlowDeps(), store.storeId, body)),
});
