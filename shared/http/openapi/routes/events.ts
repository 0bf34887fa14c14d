/** The event interfaces: `POST {base_url}/api/v1/events` and `POST {front_url}/api/v1/headless/events`. */
import * as v from 'valibot';
import { GENERAL_ENDPOINTS, HEADLESS_ENDPOINTS, SOURCE_ID_MAX_CHARS } from '#shared/domain/events/endpoints.ts';
import { GENERAL_PAYLOADS, HEADLESS_PAYLOADS } from '#shared/domain/events/envelope.ts';
import { CartData, CheckoutData } from '#shared/domain/events/payloads/carts.ts';
import { CustomerCreateData, CustomerUpdateData } from '#shared/domain/events/payloads/customers.ts';
import {
  BackInStockData,
  FlowNotifyData,
  PageViewedData,
  RestockData,
} from '#shared/domain/events/payloads/engagement.ts';
import {
  HeadlessBackInStockData,
  HeadlessCartData,
  HeadlessCustomerData,
  HeadlessPageViewedData,
} from '#shared/domain/events/payloads/headless.ts';
import { FulfilledOrderData, OrderChangeData, OrderData } from '#shared/domain/events/payloads/orders.ts';
import { ProductData } from '#shared/domain/events/payloads/products.ts';
import { ref } from '#shared/http/openapi/components.ts';
import { type JsonSchema, jsonSchemaOf } from '#shared/http/openapi/json-schema.ts';
import { route } from '#shared/http/openapi/registry.ts';
import { DATA } from '#shared/http/openapi/shapes.ts';
import { eventsReply, headlessReply, webhooksReply } from '#shared/http/responses.ts';
import { EventStatusQuery, parametersOf } from '#shared/http/route-inputs.ts';
import { LIMITS } from '#shared/limits.ts';

/**
 * Payload schemas by name. Rules JSON Schema gets from no valibot action (`requireOneOf`, a field required only on
 * product pages) are added here as `anyOf`/`if` constraints beside the converted schema.
 */
const PAYLOADS: ReadonlyMap<v.GenericSchema, { name: string; extra?: JsonSchema }> = new Map<
  v.GenericSchema,
  { name: string; extra?: JsonSchema }
>([
  [CustomerCreateData, { name: 'CustomerCreateData' }],
  [CustomerUpdateData, { name: 'CustomerUpdateData' }],
  [OrderData, { name: 'OrderData' }],
  [FulfilledOrderData, { name: 'FulfilledOrderData' }],
  [OrderChangeData, { name: 'OrderChangeData' }],
  [ProductData, { name: 'ProductData' }],
  [CartData, { name: 'CartData', extra: { anyOf: [{ required: ['token'] }, { required: ['id'] }] } }],
  [CheckoutData, { name: 'CheckoutData' }],
  [PageViewedData, { name: 'PageViewedData' }],
  [BackInStockData, { name: 'BackInStockData', extra: { anyOf: [{ required: ['email'] }, { required: ['phone'] }] } }],
  [RestockData, { name: 'RestockData' }],
  [FlowNotifyData, { name: 'FlowNotifyData' }],
  [
    HeadlessPageViewedData,
    {
      name: 'HeadlessPageViewedData',
      // Product pages (`includeProduct` 1) name their product.
      extra: {
        anyOf: [
          { properties: { includeProduct: { const: 0 } } },
          { properties: { page: { required: ['productId'] } } },
        ],
      },
    },
  ],
  [HeadlessCartData, { name: 'HeadlessCartData' }],
  [
    HeadlessCustomerData,
    { name: 'HeadlessCustomerData', extra: { anyOf: [{ required: ['email'] }, { required: ['phone'] }] } },
  ],
  [
    HeadlessBackInStockData,
    { name: 'HeadlessBackInStockData', extra: { anyOf: [{ required: ['email'] }, { required: ['phone'] }] } },
  ],
]);

const pascal = (endpoint: string) =>
  endpoint
    .split(/[/_]/)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');

const withExtras = new Map<v.GenericSchema, JsonSchema>();

/** The payload's named schema (several endpoints share one, e.g. `customers/create` and `customers`). */
const payloadRef = (schema: v.GenericSchema, fallbackName: string): JsonSchema => {
  const known = PAYLOADS.get(schema);
  if (!known?.extra) return ref(known?.name ?? fallbackName, schema);
  let merged = withExtras.get(schema);
  if (!merged) {
    merged = { ...jsonSchemaOf(schema), ...known.extra };
    withExtras.set(schema, merged);
  }
  return ref(known.name, merged);
};

const SourceId = ref('SourceId', {
  type: 'string',
  minLength: 1,
  maxLength: SOURCE_ID_MAX_CHARS,
  description: `De-duplication key, at most ${SOURCE_ID_MAX_CHARS} characters: one already seen answers \`code: 304\``,
});

/** One envelope schema per endpoint, told apart by `endpoint` (a discriminator the reference renders as a choice). */
const envelopes = (
  prefix: 'Event' | 'HeadlessEvent',
  endpoints: readonly string[],
  payloads: Readonly<Record<string, v.GenericSchema>>,
): JsonSchema => {
  const mapping: Record<string, string> = {};
  const oneOf = endpoints.map((endpoint) => {
    const payload = payloads[endpoint];
    if (!payload) throw new Error(`No payload schema for ${prefix} endpoint ${endpoint}`);
    const name = `${prefix}${pascal(endpoint)}`;
    const envelope = ref(name, {
      type: 'object',
      title: endpoint,
      properties: {
        endpoint: { const: endpoint },
        source_id: SourceId,
        data: payloadRef(payload, `${name}Data`),
      },
      required: ['endpoint', 'source_id', 'data'],
    });
    mapping[endpoint] = envelope.$ref as string;
    return envelope;
  });
  return { oneOf, discriminator: { propertyName: 'endpoint', mapping } } as JsonSchema;
};

const eventExample = {
  endpoint: 'customers/create',
  source_id: 'demo-1',
  data: { id: 'c1', email: 'ada@example.com', created_at: 1700000000 },
};

/** `GET /api/v1/events`: what became of one event (`shared/domain/ingest/event-status.ts`). */
const EventStatus = v.object({
  source_id: v.string(),
  endpoint: v.pipe(v.string(), v.description('The endpoint it was sent to, e.g. `customers/update`')),
  interface: v.pipe(v.string(), v.description('`general` or `headless`')),
  accepted_at: v.pipe(v.number(), v.integer(), v.description('When it was accepted, epoch milliseconds')),
  status: v.pipe(
    v.picklist(['accepted', 'failed']),
    v.description(
      '`accepted`: recorded and queued; it applies within about a second unless it fails. `failed`: it can never ' +
        'apply (docs/limits.md), `failure` says why; sending it again with the same `source_id` answers 304.',
    ),
  ),
  failure: v.optional(
    v.object({
      reason: v.string(),
      failed_at: v.pipe(v.number(), v.integer(), v.description('Epoch milliseconds')),
    }),
  ),
});

export const EVENT_ROUTES = {
  'events-ingest': route({
    tag: 'Events',
    summary: 'Send a store event (general interface)',
    description:
      'Queues the event and answers at once; a worker applies it in order per entity and starts its flows (spec ' +
      '"General event interface"). A `source_id` already seen answers `{code: 304, message: "SourceId already ' +
      'exist"}` **with HTTP 200** (an HTTP 304 cannot carry a body). `data.ignore_flow: "Y"` skips every flow. ' +
      `At most ${LIMITS.eventsPerSecond} requests per second per store.`,
    api: 'events',
    body: { schema: envelopes('Event', GENERAL_ENDPOINTS, GENERAL_PAYLOADS), examples: { customer: eventExample } },
    ok: { accepted: eventsReply.accepted(), duplicate: eventsReply.duplicate() },
    okDescription: 'Queued (`code: 200`), or a duplicate `source_id` ignored (`code: 304`, still HTTP 200)',
    errors: ['validation', 'payload_too_large', 'rate_limited', 'unavailable'],
  }),
  'headless-events': route({
    tag: 'Events',
    summary: 'Send a storefront event (headless interface)',
    description:
      'The headless storefront interface (spec "Headless event interface"). A duplicate `source_id` answers ' +
      "`{success: false, code: 304, message}` with HTTP 200. Besides the store key it takes the store's " +
      '**publishable key** (`pk_…`, `npm run admin -- store publishable-key`), made for storefront pages: it works on ' +
      'this route only, only from a browser page (no `Origin` answers 403) and only on the origins the store allows ' +
      `(CORS; another origin answers 403), before anything is recorded; it signs up new customers, never as subscribed to ` +
      `marketing and without starting a flow, and changes no existing one. At most ${LIMITS.eventsPerSecond} requests per second per store with the store key, and as many apart with the publishable key.`,
    api: 'headless',
    body: envelopes('HeadlessEvent', HEADLESS_ENDPOINTS, HEADLESS_PAYLOADS),
    ok: { accepted: headlessReply.accepted(), duplicate: headlessReply.duplicate() },
    okDescription: 'Queued (`success: true`), or a duplicate `source_id` ignored (`code: 304`, still HTTP 200)',
    errors: ['validation', 'forbidden', 'payload_too_large', 'rate_limited', 'unavailable'],
    errorMessages: { forbidden: "Origin https://elsewhere.example is not allowed to use this store's publishable key" },
  }),
  'event-status': route({
    tag: 'Events',
    summary: 'What became of an event',
    description:
      "One of the store's events by its `source_id`: accepted (queued, applied within about a second) or failed for " +
      "good with the reason (an entity over its size budget). Another store's `source_id` answers 404 like an unknown " +
      `one. At most ${LIMITS.eventStatusPerSecond} requests per second per store.`,
    api: 'webhooks',
    query: parametersOf(EventStatusQuery),
    ok: webhooksReply.ok(DATA),
    data: ref('EventStatus', EventStatus),
    errors: ['validation', 'not_found', 'rate_limited'],
    errorMessages: { validation: 'source_id is required', not_found: 'Event not found' },
  }),
};
