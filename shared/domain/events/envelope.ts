/**
 * The event envelope (`endpoint`, `source_id`, `data`) of the spec's "Event envelope" table, and per-endpoint payload
 * validation. A failure names the field path and the rule; unknown extra fields are kept.
 */
import * as v from 'valibot';
import { parseOrThrow } from '../validation.ts';
import { GENERAL_ENDPOINTS, type GeneralEndpoint, SOURCE_ID_MAX_CHARS } from './endpoints.ts';
import { jsonObject, text } from './fields.ts';
import { CustomerCreateData, CustomerUpdateData } from './payloads/customers.ts';
import { ProductData } from './payloads/products.ts';

const sourceId = () =>
  v.pipe(
    text(),
    v.check((s) => s.trim().length > 0, 'must not be empty'),
    // "characters", not UTF-16 code units: count code points.
    v.check((s) => [...s].length <= SOURCE_ID_MAX_CHARS, `must be at most ${SOURCE_ID_MAX_CHARS} characters`),
  );

const envelope = <E extends readonly [string, ...string[]]>(endpoints: E) =>
  v.object(
    {
      endpoint: v.picklist(endpoints, `must be one of: ${endpoints.join(', ')}`),
      source_id: sourceId(),
      data: jsonObject(),
    },
    'must be a JSON object',
  );

export const GeneralEnvelope = envelope(GENERAL_ENDPOINTS);
export type GeneralEnvelope = v.InferOutput<typeof GeneralEnvelope>;

/**
 * Payload schemas per general endpoint. Endpoints without an entry here are accepted with any object `data`; their
 * payload rules arrive with their behaviour.
 */
const GENERAL_PAYLOADS: Partial<Record<GeneralEndpoint, v.GenericSchema>> = {
  'customers/create': CustomerCreateData,
  customers: CustomerCreateData,
  'customers/update': CustomerUpdateData,
  'products/create': ProductData,
  'products/update': ProductData,
  products: ProductData,
};

/** Validates `data` for its endpoint and returns the normalised payload (paths in messages start at `data`). */
export const parseGeneralData = (endpoint: GeneralEndpoint, data: Record<string, unknown>): Record<string, unknown> => {
  const schema = GENERAL_PAYLOADS[endpoint];
  return schema ? (parseOrThrow(schema, data, 'data') as Record<string, unknown>) : data;
};

/** The whole general-interface request: envelope, then payload. */
export const parseGeneralEvent = (body: unknown): GeneralEnvelope => {
  const event = parseOrThrow(GeneralEnvelope, body);
  return { ...event, data: parseGeneralData(event.endpoint, event.data) };
};
