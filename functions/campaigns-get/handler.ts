/** `GET {base_url}/api/v1/campaigns/{campaignId}`: the campaign, its progress and its stats. */

import { getCampaign } from '#shared/domain/campaigns/manage-campaigns.ts';
import { CAMPAIGN_ROUTE } from '#shared/http/campaign-routes.ts';
import { webhooksReply } from '#shared/http/responses.ts';
import { httpRoute } from '#shared/http/route.ts';
import { CampaignPath } from '#shared/http/route-inputs.ts';
import { campaignReadDeps } from '#shared/wiring/campaigns.ts';

export const handler = httpRoute({
  ...CAMPAIGN_ROUTE,
  path: CampaignPath,
  handle: async ({ store, path }) =>
    webhooksReply.ok(await getCampaign(campaignReadDeps(), store.storeId, path.campaignId)),
});
