/**
 * `GET {base_url}/back-office/stores/{storeId}/segments`: the console's segments page: every segment of the
 * store with its live member count and its conditions on one line (`GET /api/v1/segments`'s reading).
 */

import { segmentsView } from '#shared/domain/console/segments-view.ts';
import { segmentsPage } from '#shared/http/console/segments-pages.ts';
import { openConsoleStore } from '#shared/http/console-access.ts';
import { httpRoute } from '#shared/http/route.ts';
import { ConsoleStorePath } from '#shared/http/route-inputs.ts';
import { segmentsViewDeps } from '#shared/wiring/console.ts';

export const handler = httpRoute({
  api: 'backOffice',
  auth: 'none',
  path: ConsoleStorePath,
  handle: async ({ event, path }) => {
    const opened = await openConsoleStore(event, path.storeId);
    if ('refused' in opened) return opened.refused;
    return segmentsPage(opened.store, await segmentsView(segmentsViewDeps(), opened.store.storeId));
  },
});
