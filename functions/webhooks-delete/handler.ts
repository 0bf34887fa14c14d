/** `DELETE {base_url}/api/v1/webhooks/{webHookId}`: remove a subscription; deliveries still queued for it stop. */

import { deleteWebhook } from '#shared/domain/webhooks/manage-webhooks.ts';
import { webhooksReply } from '#shared/http/responses.ts';
import { httpRoute } from '#shared/http/route.ts';
import { WebhookPath } from '#shared/http/route-inputs.ts';
import { WEBHOOK_ROUTE } from '#shared/http/webhook-routes.ts';
import { manageWebhookDeps } from '#shared/wiring/webhooks.ts';

export const handler = httpRoute({
  path: WebhookPath,
  ...WEBHOOK_ROUTE,
  handle: async ({ store, path }) =>
    webhooksReply.ok(await deleteWebhook(manageWebhookDeps(), store.storeId, path.webHookId)),
});
