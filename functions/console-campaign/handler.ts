/**
 * `GET {base_url}/back-office/stores/{storeId}/campaigns/{campaignId}?cursor=`: one campaign in the console (issue
 * 19): its progress, stats and a page of its recipients' outcomes (`GET /api/v1/campaigns/{id}` and `…/recipients`'
 * readings), with Cancel while it is scheduled or sending. Another store's campaign answers 404 like a missing one.
 */

import { campaignView } from '#shared/domain/console/campaigns-view.ts';
import { campaignPage } from '#shared/http/console/campaigns-pages.ts';
import { openConsoleStore } from '#shared/http/console-access.ts';
import { httpRoute } from '#shared/http/route.ts';
import { ConsoleCampaignPath, ConsoleCursorQuery } from '#shared/http/route-inputs.ts';
import { campaignsViewDeps } from '#shared/wiring/console.ts';

export const handler = httpRoute({
  api: 'backOffice',
  auth: 'none',
  path: ConsoleCampaignPath,
  query: ConsoleCursorQuery,
  handle: async ({ event, path, query }) => {
    const opened = await openConsoleStore(event, path.storeId);
    if ('refused' in opened) return opened.refused;
    const view = await campaignView(campaignsViewDeps(), opened.store.storeId, path.campaignId, query.cursor);
    return campaignPage(opened.store, view);
  },
});
