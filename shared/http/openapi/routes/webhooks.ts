/** Webhook management on `{base_url}`, `{code, data}` answers (spec "Webhook management", docs/webhooks.md). */

import { WebhookSubscription } from '#shared/domain/webhooks/manage-webhooks.ts';
import { ref } from '#shared/http/openapi/components.ts';
import { route } from '#shared/http/openapi/registry.ts';
import { DeliveryPage, DeliveryRecord, WebhookList, WebhookRecord } from '#shared/http/openapi/schemas.ts';
import { DATA } from '#shared/http/openapi/shapes.ts';
import { webhooksReply } from '#shared/http/responses.ts';
import { DeliveryPageQuery, DeliveryPath, parametersOf, WebhookPath } from '#shared/http/route-inputs.ts';
import { LIMITS } from '#shared/limits.ts';

const ok = webhooksReply.ok(DATA);
const pace = `At most ${LIMITS.webhookManagementPerSecond} calls per second per store.`;
const webHookId = parametersOf(WebhookPath);

export const WEBHOOK_ROUTES = {
  'webhooks-create': route({
    tag: 'Webhooks',
    summary: 'Subscribe a topic',
    description: `One subscription per topic per store: creating again for a topic replaces it (a new id). ${pace}`,
    api: 'webhooks',
    body: {
      schema: ref('WebhookSubscription', WebhookSubscription),
      examples: { newsletter: { topic: 'customer/newsletter', url: 'https://shop.example/hooks/storeflow' } },
    },
    ok,
    data: ref('WebhookRecord', WebhookRecord),
    errors: ['validation', 'payload_too_large', 'rate_limited'],
    errorMessages: { validation: 'Topic noneffective' },
  }),
  'webhooks-update': route({
    tag: 'Webhooks',
    summary: "Change a topic's URL",
    description: `Matched by topic; 404 when the topic has no subscription. ${pace}`,
    api: 'webhooks',
    body: ref('WebhookSubscription', WebhookSubscription),
    ok,
    data: ref('WebhookRecord', WebhookRecord),
    errors: ['validation', 'payload_too_large', 'not_found', 'rate_limited'],
    errorMessages: {
      validation: 'Topic noneffective',
      not_found: 'No webhook for topic customer/newsletter; create it with POST',
    },
  }),
  'webhooks-list': route({
    tag: 'Webhooks',
    summary: 'List subscriptions',
    description: pace,
    api: 'webhooks',
    ok,
    data: ref('WebhookList', WebhookList),
    errors: ['rate_limited'],
  }),
  'webhooks-count': route({
    tag: 'Webhooks',
    summary: 'Count subscriptions',
    description: pace,
    api: 'webhooks',
    ok,
    data: { type: 'integer', minimum: 0 },
    errors: ['rate_limited'],
  }),
  'webhooks-delete': route({
    tag: 'Webhooks',
    summary: 'Remove a subscription',
    description: `Deliveries still waiting for it are cancelled. ${pace}`,
    api: 'webhooks',
    path: webHookId,
    ok,
    data: { type: 'boolean', const: true },
    errors: ['not_found', 'rate_limited'],
    errorMessages: { not_found: 'Webhook not found' },
  }),
  'webhook-deliveries': route({
    tag: 'Webhooks',
    summary: "A subscription's deliveries",
    description: `Every delivery with every attempt (status, latency, answer excerpt), newest first. ${pace}`,
    api: 'webhooks',
    path: webHookId,
    query: parametersOf(DeliveryPageQuery),
    ok,
    data: ref('DeliveryPage', DeliveryPage),
    errors: ['validation', 'not_found', 'rate_limited'],
    errorMessages: { validation: 'limit must be an integer from 1 to 100', not_found: 'Webhook not found' },
  }),
  'webhook-delivery-retry': route({
    tag: 'Webhooks',
    summary: 'Re-send a failed delivery',
    description:
      "Sends a `failed` or `cancelled` delivery again to the topic's current subscription, with a fresh retry " +
      'ladder; 409 for one still pending or delivered. When another request or the delivery worker writes the ' +
      'delivery at the same moment, it is read again and re-sent if it is still failed or cancelled (409 as above if ' +
      'not); changed again during that second try, it answers 409 `The delivery is being changed by another request; ' +
      'retry` and nothing is queued. Never 500 for a concurrent change. ' +
      pace,
    api: 'webhooks',
    path: parametersOf(DeliveryPath),
    ok,
    data: ref('DeliveryRecord', DeliveryRecord),
    errors: ['not_found', 'conflict', 'rate_limited'],
    errorMessages: {
      not_found: 'Delivery not found',
      conflict: 'The delivery is pending; only failed or cancelled deliveries can be re-sent',
    },
  }),
};
