/**
 * The event envelope (`endpoint`, `source_id`, `data`) of the spec's "Event envelope" table, and per-endpoint payload
 * validation. A failure names the field path and the rule; unknown extra fields are kept.
 */
import * as v from 'valibot';
import { parseOrThrow } from '#shared/domain/validation.ts';
import {
  GENERAL_ENDPOINTS,
  type GeneralEndpoint,
  HEADLESS_ENDPOINTS,
  type HeadlessEndpoint,
  SOURCE_ID_MAX_CHARS,
} from './endpoints.ts';
import { checkExtraProperties } from './extra-properties.ts';
import { jsonObject, text } from './fields.ts';
import { CartData, CheckoutData } from './payloads/carts.ts';
import { CustomerCreateData, CustomerUpdateData } from './payloads/customers.ts';
import { BackInStockData, FlowNotifyData, PageViewedData, RestockData } from './payloads/engagement.ts';
import {
  HeadlessBackInStockData,
  HeadlessCartData,
  HeadlessCustomerData,
  HeadlessPageViewedData,
} from './payloads/headless.ts';
import { FulfilledOrderData, OrderChangeData, OrderData } from './payloads/orders.ts';
import { ProductData } from './payloads/products.ts';

const sourceId = () =>
  v.pipe(
    text(),
    v.check((s) => s.trim().length > 0, 'must not be empty'),
    // "characters", not UTF-16 code units: count code points.
    v.check((s) => [...s].length <= SOURCE_ID_MAX_CHARS, `must be at most ${SOURCE_ID_MAX_CHARS} characters`),
  );

// valibot's object schema takes arrays for objects; the body check comes first so `[]` reads "must be a JSON object".
const envelope = <E extends readonly [string, ...string[]]>(endpoints: E) =>
  v.pipe(
    v.custom<Record<string, unknown>>(
      (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
      'must be a JSON object',
    ),
    v.object(
      {
        endpoint: v.picklist(endpoints, `must be one of: ${endpoints.join(', ')}`),
        source_id: sourceId(),
        data: jsonObject(),
      },
      'must be a JSON object',
    ),
  );

export const GeneralEnvelope = envelope(GENERAL_ENDPOINTS);
export type GeneralEnvelope = v.InferOutput<typeof GeneralEnvelope>;

/** Payload schema per general endpoint (spec "General event payloads"; "not shown" payloads in docs/events.md). */
export const GENERAL_PAYLOADS: Record<GeneralEndpoint, v.GenericSchema> = {
  'customers/create': CustomerCreateData,
  customers: CustomerCreateData,
  'customers/update': CustomerUpdateData,
  'orders/create': OrderData,
  'orders/paid': OrderData,
  'orders/fulfilled': FulfilledOrderData,
  'orders/update': OrderChangeData,
  'orders/cancelled': OrderChangeData,
  'orders/refunded': OrderChangeData,
  'products/create': ProductData,
  'products/update': ProductData,
  products: ProductData,
  'carts/create': CartData,
  'carts/update': CartData,
  carts: CartData,
  'checkouts/create': CheckoutData,
  'checkouts/update': CheckoutData,
  'page/viewed': PageViewedData,
  'products/back_in_stock': BackInStockData,
  'products/restock': RestockData,
  'flow/notify': FlowNotifyData,
};

/** Payload schema per headless endpoint (spec "Headless event payloads"). */
export const HEADLESS_PAYLOADS: Record<HeadlessEndpoint, v.GenericSchema> = {
  'page/viewed': HeadlessPageViewedData,
  'carts/create': HeadlessCartData,
  'carts/update': HeadlessCartData,
  'customers/create': HeadlessCustomerData,
  'products/back_in_stock': HeadlessBackInStockData,
};

export const HeadlessEnvelope = envelope(HEADLESS_ENDPOINTS);
export type HeadlessEnvelope = v.InferOutput<typeof HeadlessEnvelope>;

/** Validates `data` for its endpoint and returns the normalised payload (paths in messages start at `data`). */
export const parseGeneralData = (endpoint: GeneralEndpoint, data: Record<string, unknown>): Record<string, unknown> =>
  parsePayload(GENERAL_PAYLOADS[endpoint], data);

/** The payload by its schema, then its extra properties by their budget (`extra-properties.ts`). */
const parsePayload = (schema: v.GenericSchema, data: Record<string, unknown>): Record<string, unknown> => {
  const parsed = parseOrThrow(schema, data, 'data') as Record<string, unknown>;
  checkExtraProperties(schema, parsed);
  return parsed;
};

/** The whole general-interface request: envelope, then payload. */
export const parseGeneralEvent = (body: unknown): GeneralEnvelope => {
  const event = parseOrThrow(GeneralEnvelope, body);
  return { ...event, data: parseGeneralData(event.endpoint, event.data) };
};

/** The whole headless request: envelope, then payload. */
export const parseHeadlessEvent = (body: unknown): HeadlessEnvelope => {
  const event = parseOrThrow(HeadlessEnvelope, body);
  return {
    ...event,
    data: parsePayload(HEADLESS_PAYLOADS[event.endpoint], event.data),
  };
};
