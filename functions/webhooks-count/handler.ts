/** `GET {base_url}/api/v1/webhooks/count`: how many subscriptions the store has. */

import { countWebhooks } from '#shared/domain/webhooks/manage-webhooks.ts';
import { webhooksReply } from '#shared/http/responses.ts';
import { httpRoute } from '#shared/http/route.ts';
import { WEBHOOK_ROUTE } from '#shared/http/webhook-routes.ts';
import { manageWebhookDeps } from '#shared/wiring/webhooks.ts';

export const handler = httpRoute({
  ...WEBHOOK_ROUTE,
  handle: async ({ store }) => webhooksReply.ok(await countWebhooks(manageWebhookDeps(), store.storeId)),
});
