/** `GET {base_url}/api/v1/flows/{flowId}/stats?from=&to=`: one flow's attribution counters, per step too. */

import { flowStats } from '#shared/domain/attribution/attribute.ts';
import { FLOW_ROUTE } from '#shared/http/flow-routes.ts';
import { webhooksReply } from '#shared/http/responses.ts';
import { httpRoute } from '#shared/http/route.ts';
import { FlowPath, StatsQuery } from '#shared/http/route-inputs.ts';
import { statsDeps } from '#shared/wiring/attribution.ts';

export const handler = httpRoute({
  path: FlowPath,
  query: StatsQuery,
  ...FLOW_ROUTE,
  handle: async ({ store, path, query }) =>
    webhooksReply.ok(await flowStats(statsDeps(), store.storeId, path.flowId, query)),
});
