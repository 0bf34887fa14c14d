/** `GET {base_url}/api/v1/campaigns/{campaignId}/recipients?limit=&cursor=`: each recipient's outcome. */

import { listCampaignRecipients } from '#shared/domain/campaigns/manage-campaigns.ts';
import { CAMPAIGN_ROUTE } from '#shared/http/campaign-routes.ts';
import { webhooksReply } from '#shared/http/responses.ts';
import { httpRoute } from '#shared/http/route.ts';
import { CampaignPath, CampaignRecipientsQuery } from '#shared/http/route-inputs.ts';
import { campaignReadDeps } from '#shared/wiring/campaigns.ts';

export const handler = httpRoute({
  ...CAMPAIGN_ROUTE,
  path: CampaignPath,
  query: CampaignRecipientsQuery,
  handle: async ({ store, path, query }) =>
    webhooksReply.ok(await listCampaignRecipients(campaignReadDeps(), store.storeId, path.campaignId, query)),
});
