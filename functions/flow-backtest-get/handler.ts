/** `GET {base_url}/api/v1/flows/{flowId}/backtests/{backtestId}`: a backtest job's progress, then its answer. */

import { getBacktestJob } from '#shared/domain/backtest/job.ts';
import { FLOW_ROUTE } from '#shared/http/flow-routes.ts';
import { webhooksReply } from '#shared/http/responses.ts';
import { httpRoute } from '#shared/http/route.ts';
import { BacktestJobPath } from '#shared/http/route-inputs.ts';
import { backtestJobDeps } from '#shared/wiring/backtest.ts';

export const handler = httpRoute({
  path: BacktestJobPath,
  ...FLOW_ROUTE,
  handle: async ({ store, path }) =>
    webhooksReply.ok(await getBacktestJob(backtestJobDeps(), store.storeId, path.flowId, path.backtestId)),
});
