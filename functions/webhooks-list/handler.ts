/** `GET {base_url}/api/v1/webhooks`: the store's subscriptions, `{list, total}`. */

import { listWebhooks } from '#shared/domain/webhooks/manage-webhooks.ts';
import { webhooksReply } from '#shared/http/responses.ts';
import { httpRoute } from '#shared/http/route.ts';
import { WEBHOOK_ROUTE } from '#shared/http/webhook-routes.ts';
import { manageWebhookDeps } from '#shared/wiring/webhooks.ts';

export const handler = httpRoute({
  ...WEBHOOK_ROUTE,
  handle: async ({ store }) => webhooksReply.ok(await listWebhooks(manageWebhookDeps(), store.storeId)),
});
