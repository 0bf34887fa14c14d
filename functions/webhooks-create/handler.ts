/** `POST {base_url}/api/v1/webhooks`: subscribe a topic (a repeat for the topic overwrites it). */

import { createWebhook, WebhookSubscription } from '#shared/domain/webhooks/manage-webhooks.ts';
import { webhooksReply } from '#shared/http/responses.ts';
import { httpRoute } from '#shared/http/route.ts';
import { WEBHOOK_ROUTE } from '#shared/http/webhook-routes.ts';
import { manageWebhookDeps } from '#shared/wiring/webhooks.ts';

export const handler = httpRoute({
  ...WEBHOOK_ROUTE,
  body: WebhookSubscription,
  handle: async ({ store, body }) => webhooksReply.ok(await createWebhook(manageWebhookDeps(), store.storeId, body)),
});
