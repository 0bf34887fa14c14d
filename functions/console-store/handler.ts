/**
 * `GET {base_url}/back-office/stores/{storeId}?from=&to=`: the console's store overview (issue 17) for a signed-in
 * sub-account: the store's emails, the orders they earned and its flows, over a range of days. A store the account may
 * not open answers exactly like one that does not exist.
 */

import { backOfficeAccess } from '#shared/domain/accounts/sign-in.ts';
import { storeOverview } from '#shared/domain/console/overview.ts';
import { htmlPage, notSignedInPage } from '#shared/http/back-office-pages.ts';
import { storeOverviewPage } from '#shared/http/console-pages.ts';
import { httpRoute } from '#shared/http/route.ts';
import { ConsoleStorePath, StatsQuery } from '#shared/http/route-inputs.ts';
import { sessionIdOf } from '#shared/http/session-cookie.ts';
import { signInDeps } from '#shared/wiring/accounts.ts';
import { overviewDeps } from '#shared/wiring/attribution.ts';

export const handler = httpRoute({
  api: 'backOffice',
  auth: 'none',
  path: ConsoleStorePath,
  query: StatsQuery,
  handle: async ({ event, path, query }) => {
    const sessionId = sessionIdOf(event);
    const access = await backOfficeAccess(signInDeps(), sessionId);
    if (!access) return notSignedInPage(Boolean(sessionId));
    const store = access.stores.find((s) => s.storeId === path.storeId);
    if (!store) return htmlPage(404, 'Store not found', 'No store with this id is open to your account.');
    return storeOverviewPage(store, await storeOverview(overviewDeps(), store.storeId, query));
  },
});
