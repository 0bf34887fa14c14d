/** `GET {base_url}/api/v1/flows/{flowId}/runs?limit=&cursor=`: the flow's evaluations and runs, newest first. */

import { listFlowRuns } from '#shared/domain/flows/explain.ts';
import { FLOW_ROUTE } from '#shared/http/flow-routes.ts';
import { webhooksReply } from '#shared/http/responses.ts';
import { httpRoute } from '#shared/http/route.ts';
import { FlowPath, FlowRunsQuery } from '#shared/http/route-inputs.ts';
import { explainDeps } from '#shared/wiring/flow-engine.ts';

export const handler = httpRoute({
  path: FlowPath,
  query: FlowRunsQuery,
  // The flows API's interface and rate bucket: explain and definition calls share one budget.
  ...FLOW_ROUTE,
  handle: async ({ store, path, query }) =>
    webhooksReply.ok(
      await listFlowRuns(explainDeps(), store.storeId, path.flowId, {
        limit: query.limit,
        cursor: query.cursor,
      }),
    ),
});
