/**
 * `GET {base_url}/back-office/stores/{storeId}/campaigns?cursor=`: the console's campaigns page: the
 * store's campaigns newest first with their segments, state, progress and stats (the campaigns API's readings).
 */

import { campaignsView } from '#shared/domain/console/campaigns-view.ts';
import { campaignsPage } from '#shared/http/console/campaigns-pages.ts';
import { openConsoleStore } from '#shared/http/console-access.ts';
import { httpRoute } from '#shared/http/route.ts';
import { ConsoleCursorQuery, ConsoleStorePath } from '#shared/http/route-inputs.ts';
import { campaignsViewDeps } from '#shared/wiring/console.ts';

export const handler = httpRoute({
  api: 'backOffice',
  auth: 'none',
  path: ConsoleStorePath,
  query: ConsoleCursorQuery,
  handle: async ({ event, path, query }) => {
    const opened = await openConsoleStore(event, path.storeId);
    if ('refused' in opened) return opened.refused;
    return campaignsPage(opened.store, await campaignsView(campaignsViewDeps(), opened.store.storeId, query.cursor));
  },
});
