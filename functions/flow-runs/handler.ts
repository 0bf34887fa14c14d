/** `GET {base_url}/api/v1/flows/{flowId}/runs?limit=&cursor=`: the flow's evaluations and runs, newest first. */

import { listFlowRuns } from '#shared/domain/flows/explain.ts';
import { FLOW_ROUTE } from '#shared/http/flow-routes.ts';
import { webhooksReply } from '#shared/http/responses.ts';
import { httpRoute } from '#shared/http/route.ts';
import { explainDeps } from '#shared/wiring/flow-engine.ts';

export const handler = httpRoute({
  // The flows API's interface and rate bucket: explain and definition calls share one budget.
  ...FLOW_ROUTE,
  handle: async ({ store, event }) =>
    webhooksReply.ok(
      await listFlowRuns(explainDeps(), store.storeId, event.pathParameters?.flowId, {
        limit: event.queryStringParameters?.limit,
        cursor: event.queryStringParameters?.cursor,
      }),
    ),
});
