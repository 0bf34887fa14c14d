/** `POST {base_url}/api/v1/campaigns/{campaignId}/cancel`: nothing more is sent; the answer says how many were. */

import { cancelCampaign } from '#shared/domain/campaigns/manage-campaigns.ts';
import { CAMPAIGN_ROUTE } from '#shared/http/campaign-routes.ts';
import { webhooksReply } from '#shared/http/responses.ts';
import { httpRoute } from '#shared/http/route.ts';
import { CampaignPath } from '#shared/http/route-inputs.ts';
import { cancelCampaignDeps } from '#shared/wiring/campaigns.ts';

export const handler = httpRoute({
  ...CAMPAIGN_ROUTE,
  path: CampaignPath,
  handle: async ({ store, path }) =>
    webhooksReply.ok(await cancelCampaign(cancelCampaignDeps(), store.storeId, path.campaignId)),
});
