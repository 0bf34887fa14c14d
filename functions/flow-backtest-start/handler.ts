/** `POST {base_url}/api/v1/flows/{flowId}/backtests`: a backtest of any size as a job (202 with its id). */

import { parseBacktestRequest } from '#shared/domain/backtest/backtest.ts';
import { startBacktestJob } from '#shared/domain/backtest/job.ts';
import { assertOwnFlow } from '#shared/domain/flows/manage-flows.ts';
import { FLOW_ROUTE } from '#shared/http/flow-routes.ts';
import { webhooksReply } from '#shared/http/responses.ts';
import { httpRoute } from '#shared/http/route.ts';
import { FlowPath } from '#shared/http/route-inputs.ts';
import { startBacktestDeps } from '#shared/wiring/backtest.ts';
import { manageFlowDeps } from '#shared/wiring/flows.ts';

export const handler = httpRoute({
  path: FlowPath,
  ...FLOW_ROUTE,
  // Another store's flow answers 404 even to an invalid body, as the other flow routes do.
  found: ({ store, path }) => assertOwnFlow(manageFlowDeps(), store.storeId, path.flowId),
  body: parseBacktestRequest,
  handle: async ({ store, path, body }) =>
    webhooksReply.accepted(await startBacktestJob(startBacktestDeps(), store.storeId, path.flowId, body)),
});
