/** Webhooks: subscriptions and deliveries. */
import { area, consumer, READ_ROUTE_USES, route, WEBHOOK_ROUTE_USES } from '#shared/catalog/function-spec.ts';

export const WEBHOOKS_FUNCTIONS = area('webhooks', [
  route('webhooks-create', ['POST', 'main', '/api/v1/webhooks'], WEBHOOK_ROUTE_USES),
  route('webhooks-update', ['PUT', 'main', '/api/v1/webhooks'], WEBHOOK_ROUTE_USES),
  route('webhooks-list', ['GET', 'main', '/api/v1/webhooks'], READ_ROUTE_USES),
  route('webhooks-count', ['GET', 'main', '/api/v1/webhooks/count'], READ_ROUTE_USES),
  route('webhooks-delete', ['DELETE', 'main', '/api/v1/webhooks/{webHookId}'], WEBHOOK_ROUTE_USES),
  route('webhook-deliveries', ['GET', 'main', '/api/v1/webhooks/{webHookId}/deliveries'], READ_ROUTE_USES),
  route('webhook-delivery-retry', ['POST', 'main', '/api/v1/webhooks/deliveries/{deliveryId}/retry'], {
    table: 'readWrite',
    sendTo: ['webhooks'],
  }),
  // Ten deliveries of up to 10 s each, sent one after another in the worst case, fit well within the timeout.
  consumer(
    'webhook-delivery-worker',
    'webhooks',
    // Its attempts' counts (the console's overview) go to the counters queue at each batch's end.
    { table: 'readWrite', masterKey: true, sendTo: ['counters'] },
    { timeoutSeconds: 110, memoryMb: 256, batchSize: 10, maxConcurrency: 20 },
  ),
]);
