/** `GET {base_url}/api/v1/stats?from=&to=`: the store's attribution counters over a range of days (docs/attribution.md). */

import { storeStats } from '#shared/domain/attribution/attribute.ts';
import { FLOW_ROUTE } from '#shared/http/flow-routes.ts';
import { webhooksReply } from '#shared/http/responses.ts';
import { httpRoute } from '#shared/http/route.ts';
import { StatsQuery } from '#shared/http/route-inputs.ts';
import { statsDeps } from '#shared/wiring/attribution.ts';

export const handler = httpRoute({
  query: StatsQuery,
  ...FLOW_ROUTE,
  handle: async ({ store, query }) => webhooksReply.ok(await storeStats(statsDeps(), store.storeId, query)),
});
