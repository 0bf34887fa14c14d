/**
 * `GET {base_url}/back-office/stores/{storeId}/sending?cursor=`: the console's bulk sending page: the
 * store's batches newest first with their counts, each linking to its recipients' outcomes.
 */

import { sendingView } from '#shared/domain/console/sending-view.ts';
import { sendingPage } from '#shared/http/console/sending-pages.ts';
import { openConsoleStore } from '#shared/http/console-access.ts';
import { httpRoute } from '#shared/http/route.ts';
import { ConsoleCursorQuery, ConsoleStorePath } from '#shared/http/route-inputs.ts';
import { sendingViewDeps } from '#shared/wiring/console.ts';

export const handler = httpRoute({
  api: 'backOffice',
  auth: 'none',
  path: ConsoleStorePath,
  query: ConsoleCursorQuery,
  handle: async ({ event, path, query }) => {
    const opened = await openConsoleStore(event, path.storeId);
    if ('refused' in opened) return opened.refused;
    return sendingPage(opened.store, await sendingView(sendingViewDeps(), opened.store.storeId, query.cursor));
  },
});
