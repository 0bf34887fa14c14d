/**
 * `GET {base_url}/back-office/stores/{storeId}?from=&to=`: the console's store overview for a signed-in
 * sub-account: the store's emails, the orders they earned, its flows, events and webhook deliveries over a range of
 * days. A store the account may not open answers exactly like one that does not exist.
 */

import { storeOverview } from '#shared/domain/console/overview.ts';
import { storeOverviewPage } from '#shared/http/console/overview-page.ts';
import { openConsoleStore } from '#shared/http/console-access.ts';
import { httpRoute } from '#shared/http/route.ts';
import { ConsoleStorePath, StatsQuery } from '#shared/http/route-inputs.ts';
import { overviewDeps } from '#shared/wiring/console.ts';

export const handler = httpRoute({
  api: 'backOffice',
  auth: 'none',
  path: ConsoleStorePath,
  query: StatsQuery,
  handle: async ({ event, path, query }) => {
    const opened = await openConsoleStore(event, path.storeId);
    if ('refused' in opened) return opened.refused;
    return storeOverviewPage(opened.store, await storeOverview(overviewDeps(), opened.store.storeId, query));
  },
});
