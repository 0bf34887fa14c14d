/** `POST {base_url}/api/v1/webhooks/deliveries/{deliveryId}/retry`: re-send a failed delivery. */

import { retryDelivery } from '#shared/domain/webhooks/manage-webhooks.ts';
import { webhooksReply } from '#shared/http/responses.ts';
import { httpRoute } from '#shared/http/route.ts';
import { DeliveryPath } from '#shared/http/route-inputs.ts';
import { WEBHOOK_ROUTE } from '#shared/http/webhook-routes.ts';
import { manageWebhookDeps } from '#shared/wiring/webhooks.ts';

export const handler = httpRoute({
  path: DeliveryPath,
  ...WEBHOOK_ROUTE,
  handle: async ({ store, path }) =>
    webhooksReply.ok(await retryDelivery(manageWebhookDeps(), store.storeId, path.deliveryId)),
});
