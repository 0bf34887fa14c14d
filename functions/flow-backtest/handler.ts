/** `POST {base_url}/api/v1/flows/{flowId}/backtest`: replay a period of the store's events through the flow, send nothing. */

import { backtestOneAtATime, parseBacktestRequest } from '#shared/domain/backtest/backtest.ts';
import { assertOwnFlow } from '#shared/domain/flows/manage-flows.ts';
import { FLOW_ROUTE } from '#shared/http/flow-routes.ts';
import { webhooksReply } from '#shared/http/responses.ts';
import { httpRoute } from '#shared/http/route.ts';
import { FlowPath } from '#shared/http/route-inputs.ts';
import { syncBacktestDeps } from '#shared/wiring/backtest.ts';
import { manageFlowDeps } from '#shared/wiring/flows.ts';

export const handler = httpRoute({
  path: FlowPath,
  ...FLOW_ROUTE,
  // Another store's flow answers 404 even to an invalid body, as the other flow routes do.
  found: ({ store, path }) => assertOwnFlow(manageFlowDeps(), store.storeId, path.flowId),
  body: parseBacktestRequest,
  handle: async ({ store, path, body }) =>
    webhooksReply.ok(await backtestOneAtATime(syncBacktestDeps(), store.storeId, path.flowId, body)),
});
