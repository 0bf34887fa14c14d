/** `PUT {base_url}/api/v1/webhooks`: change the URL of a topic's subscription (matched by topic). */

import { updateWebhook, WebhookSubscription } from '#shared/domain/webhooks/manage-webhooks.ts';
import { webhooksReply } from '#shared/http/responses.ts';
import { httpRoute } from '#shared/http/route.ts';
import { WEBHOOK_ROUTE } from '#shared/http/webhook-routes.ts';
import { manageWebhookDeps } from '#shared/wiring/webhooks.ts';

export const handler = httpRoute({
  ...WEBHOOK_ROUTE,
  body: WebhookSubscription,
  handle: async ({ store, body }) => webhooksReply.ok(await updateWebhook(manageWebhookDeps(), store.storeId, body)),
});
