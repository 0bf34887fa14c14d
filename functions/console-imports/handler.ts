/**
 * `GET {base_url}/back-office/stores/{storeId}/imports?cursor=`: the console's imports page: the store's
 * import jobs, newest first, with their progress and line errors.
 */

import { importsView } from '#shared/domain/console/imports-view.ts';
import { importsPage } from '#shared/http/console/imports-page.ts';
import { openConsoleStore } from '#shared/http/console-access.ts';
import { httpRoute } from '#shared/http/route.ts';
import { ConsoleCursorQuery, ConsoleStorePath } from '#shared/http/route-inputs.ts';
import { importJobDeps } from '#shared/wiring/imports.ts';

export const handler = httpRoute({
  api: 'backOffice',
  auth: 'none',
  path: ConsoleStorePath,
  query: ConsoleCursorQuery,
  handle: async ({ event, path, query }) => {
    const opened = await openConsoleStore(event, path.storeId);
    if ('refused' in opened) return opened.refused;
    return importsPage(opened.store, await importsView(importJobDeps(), opened.store.storeId, query.cursor));
  },
});
