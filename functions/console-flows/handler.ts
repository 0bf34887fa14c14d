/**
 * `GET {base_url}/back-office/stores/{storeId}/flows?from=&to=`: the console's flows page: every flow of
 * the store with its state and funnel over a range of days. A store the account may not open answers exactly like
 * one that does not exist.
 */

import { flowsOverview } from '#shared/domain/console/overview.ts';
import { flowsPage } from '#shared/http/console/flows-page.ts';
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
    return flowsPage(opened.store, await flowsOverview(overviewDeps(), opened.store.storeId, query));
  },
});
