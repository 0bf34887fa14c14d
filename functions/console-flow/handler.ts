/**
 * `GET {base_url}/back-office/stores/{storeId}/flows/{flowId}?from=&to=`: the console's flow page: its
 * funnel per step, its latest evaluations and its emails previewed for the latest run's contact and cart.
 */

import { flowDetail } from '#shared/domain/console/flow-detail.ts';
import { flowDetailPage } from '#shared/http/console/flow-pages.ts';
import { openConsoleStore } from '#shared/http/console-access.ts';
import { httpRoute } from '#shared/http/route.ts';
import { ConsoleFlowPath, StatsQuery } from '#shared/http/route-inputs.ts';
import { flowDetailDeps } from '#shared/wiring/console.ts';

export const handler = httpRoute({
  api: 'backOffice',
  auth: 'none',
  path: ConsoleFlowPath,
  query: StatsQuery,
  handle: async ({ event, path, query }) => {
    const opened = await openConsoleStore(event, path.storeId);
    if ('refused' in opened) return opened.refused;
    return flowDetailPage(opened.store, await flowDetail(flowDetailDeps(), opened.store, path.flowId, query));
  },
});
