/** `DELETE {base_url}/api/v1/webhooks/{webHookId}`: remove a subscription; deliveries still queued for it stop. */
import { manageWebhookDeps } from '../../shared/adapters/webhooks.ts';
import { deleteWebhook } from '../../shared/domain/webhooks/manage-webhooks.ts';
import { webhooksReply } from '../../shared/http/responses.ts';
import { httpRoute } from '../../shared/http/route.ts';
import { WEBHOOK_ROUTE } from '../../shared/http/webhook-routes.ts';

export const handler = httpRoute({
  ...WEBHOOK_ROUTE,
  handle: async ({ store, event }) =>
    webhooksReply.ok(await deleteWebhook(manageWebhookDeps(), store.storeId, event.pathParameters?.webHookId)),
});
