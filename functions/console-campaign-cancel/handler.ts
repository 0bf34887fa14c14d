/**
 * `POST {base_url}/back-office/stores/{storeId}/campaigns/{campaignId}/cancel`: the campaign page's Cancel, the same
 * change as `POST /api/v1/campaigns/{id}/cancel`. Refused cross-site (the `Origin` check, beside the session cookie's
 * SameSite=Lax); answers `303` back to the page.
 */

import { cancelCampaign } from '#shared/domain/campaigns/manage-campaigns.ts';
import { storeBase } from '#shared/http/console/layout.ts';
import { openConsoleForm, seeOther } from '#shared/http/console-access.ts';
import { httpRoute } from '#shared/http/route.ts';
import { ConsoleCampaignPath } from '#shared/http/route-inputs.ts';
import { cancelCampaignDeps } from '#shared/wiring/campaigns.ts';

export const handler = httpRoute({
  api: 'backOffice',
  auth: 'none',
  path: ConsoleCampaignPath,
  handle: async ({ event, path }) => {
    const opened = await openConsoleForm(event, path.storeId, 'Cancel the campaign from its page.');
    if ('refused' in opened) return opened.refused;
    const cancelled = await cancelCampaign(cancelCampaignDeps(), opened.store.storeId, path.campaignId);
    return seeOther(`${storeBase(opened.store.storeId)}/campaigns/${encodeURIComponent(cancelled.id)}`);
  },
});
