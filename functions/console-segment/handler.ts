/**
 * `GET {base_url}/back-office/stores/{storeId}/segments/{segmentId}?cursor=`: one segment in the console:
 * its live count, conditions and a page of its members (`GET /api/v1/segments/{id}` and `…/members`' readings).
 * Another store's segment answers 404 like a missing one.
 */

import { segmentView } from '#shared/domain/console/segments-view.ts';
import { segmentPage } from '#shared/http/console/segments-pages.ts';
import { openConsoleStore } from '#shared/http/console-access.ts';
import { httpRoute } from '#shared/http/route.ts';
import { ConsoleCursorQuery, ConsoleSegmentPath } from '#shared/http/route-inputs.ts';
import { segmentsViewDeps } from '#shared/wiring/console.ts';

export const handler = httpRoute({
  api: 'backOffice',
  auth: 'none',
  path: ConsoleSegmentPath,
  query: ConsoleCursorQuery,
  handle: async ({ event, path, query }) => {
    const opened = await openConsoleStore(event, path.storeId);
    if ('refused' in opened) return opened.refused;
    const view = await segmentView(segmentsViewDeps(), opened.store.storeId, path.segmentId, query.cursor);
    return segmentPage(opened.store, view);
  },
});
