/** `PUT {base_url}/api/v1/flows/{flowId}`: replace the definition (`revision` for optimistic concurrency). */

import { updateFlow } from '#shared/domain/flows/manage-flows.ts';
import { FLOW_ROUTE } from '#shared/http/flow-routes.ts';
import { webhooksReply } from '#shared/http/responses.ts';
import { httpRoute } from '#shared/http/route.ts';
import { rawBody } from '#shared/http/webhook-routes.ts';
import { manageFlowDeps } from '#shared/wiring/flows.ts';

export const handler = httpRoute({
  ...FLOW_ROUTE,
  parseBody: rawBody,
  handle: async ({ store, body, event }) =>
    webhooksReply.ok(await updateFlow(manageFlowDeps(), store.storeId, event.pathParameters?.flowId, body)),
});
