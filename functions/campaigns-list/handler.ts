/** `GET {base_url}/api/v1/campaigns?limit=&cursor=`: the store's campaigns, newest first. */

import { listCampaigns } from '#shared/domain/campaigns/manage-campaigns.ts';
import { CAMPAIGN_ROUTE } from '#shared/http/campaign-routes.ts';
import { webhooksReply } from '#shared/http/responses.ts';
import { httpRoute } from '#shared/http/route.ts';
import { CampaignListQuery } from '#shared/http/route-inputs.ts';
import { campaignReadDeps } from '#shared/wiring/campaigns.ts';

export const handler = httpRoute({
  ...CAMPAIGN_ROUTE,
  query: CampaignListQuery,
  handle: async ({ store, query }) => webhooksReply.ok(await listCampaigns(campaignReadDeps(), store.storeId, query)),
});
