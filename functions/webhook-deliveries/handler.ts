/** `GET {base_url}/api/v1/webhooks/{webHookId}/deliveries?limit=&cursor=`: every attempt, newest delivery first. */

import { listDeliveries } from '#shared/domain/webhooks/manage-webhooks.ts';
import { webhooksReply } from '#shared/http/responses.ts';
import { httpRoute } from '#shared/http/route.ts';
import { DeliveryPageQuery, WebhookPath } from '#shared/http/route-inputs.ts';
import { WEBHOOK_ROUTE } from '#shared/http/webhook-routes.ts';
import { manageWebhookDeps } from '#shared/wiring/webhooks.ts';

export const handler = httpRoute({
  path: WebhookPath,
  query: DeliveryPageQuery,
  ...WEBHOOK_ROUTE,
  handle: async ({ store, path, query }) =>
    webhooksReply.ok(
      await listDeliveries(manageWebhookDeps(), store.storeId, path.webHookId, {
        limit: query.limit,
        cursor: query.cursor,
      }),
    ),
});
