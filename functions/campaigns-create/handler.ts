/** `POST {base_url}/api/v1/campaigns`: a one-off email to segments, now or at `sendAt`; answered 202 at once. */

import { parseCampaignRequest } from '#shared/domain/campaigns/campaign-request.ts';
import { createCampaign } from '#shared/domain/campaigns/manage-campaigns.ts';
import { CAMPAIGN_ROUTE } from '#shared/http/campaign-routes.ts';
import { webhooksReply } from '#shared/http/responses.ts';
import { httpRoute } from '#shared/http/route.ts';
import { manageCampaignDeps } from '#shared/wiring/campaigns.ts';

export const handler = httpRoute({
  ...CAMPAIGN_ROUTE,
  body: parseCampaignRequest,
  handle: async ({ store, body }) =>
    webhooksReply.accepted(await createCampaign(manageCampaignDeps(), store.storeId, body)),
});
