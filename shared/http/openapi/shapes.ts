/**
 * Response shapes for the API description, derived from the renderers in `shared/http/responses.ts` rather than
 * written again: a success is described by rendering it with a placeholder where its data goes, an error by rendering
 * an `AppError` of each kind through `renderError`, so the status codes and bodies documented are the ones sent.
 */
import { AppError, type ErrorKind } from '#shared/errors.ts';
import type { Reply } from '#shared/http/reply.ts';
import { type ApiInterface, renderError, renderInternalError } from '#shared/http/responses.ts';
import type { JsonSchema } from './json-schema.ts';

/** Stands for "the data goes here" in a reply rendered to learn its shape. */
export const DATA = Symbol('data');

/** Keys whose value changes on every reply, described by type rather than as a constant. */
const VARIABLE_KEYS = new Set(['timestamp', 'message']);

/**
 * The JSON Schema of a rendered body: objects with every key required, numbers and booleans as constants (`code`,
 * `state`, `success` are fixed per answer), strings as strings with the rendered text as example, and `data` where the
 * placeholder was.
 */
export const shapeOf = (sample: unknown, data: JsonSchema = {}, key?: string): JsonSchema => {
  if (sample === DATA) return data;
  if (Array.isArray(sample)) return { type: 'array' };
  if (sample !== null && typeof sample === 'object') {
    const entries = Object.entries(sample);
    return {
      type: 'object',
      properties: Object.fromEntries(entries.map(([k, value]) => [k, shapeOf(value, data, k)])),
      required: entries.map(([k]) => k),
    };
  }
  if (typeof sample === 'string') return { type: 'string', examples: [sample] };
  if (typeof sample === 'number') {
    const integer = Number.isInteger(sample) ? 'integer' : 'number';
    return key !== undefined && VARIABLE_KEYS.has(key) ? { type: integer } : { type: integer, const: sample };
  }
  if (typeof sample === 'boolean') return { type: 'boolean', const: sample };
  // The sending errors' `id: null` (nothing was accepted).
  if (sample === null) return { type: 'null' };
  return {};
};

/** A fixed time for the `timestamp` of rendered examples, so the generated document is the same on every run. */
const EXAMPLE_TIMESTAMP = 1_700_000_000_000;

/** A rendered body as an example: a `timestamp` set to a fixed time. */
export const exampleOf = (body: unknown): unknown =>
  body !== null && typeof body === 'object' && !Array.isArray(body) && 'timestamp' in body
    ? { ...body, timestamp: EXAMPLE_TIMESTAMP }
    : body;

/** A success reply rendered with `DATA` as its data (e.g. `webhooksReply.ok(DATA)`), and the schema of that data. */
export const replyShape = (reply: Reply, data?: JsonSchema): JsonSchema => shapeOf(reply.body, data);

export interface ErrorResponse {
  readonly status: number;
  readonly schema: JsonSchema;
  readonly example: unknown;
}

/** What every error kind means to a caller, shown beside its status code. */
export const ERROR_MEANINGS: Record<ErrorKind | 'internal', string> = {
  validation: 'Validation failed: the message names the field and the rule',
  unauthorized: 'X-Service-Access-Token missing or invalid',
  forbidden: 'The credential is valid but does not allow this',
  rate_limited: 'Too many requests for this store; retry after the Retry-After seconds',
  payload_too_large: 'The request body is larger than the limit',
  unprocessable: 'The request is well-formed but cannot be carried out as asked; the message says what to change',
  not_found: "Not found (another store's id answers exactly like a missing one)",
  conflict: 'The resource is not in a state that allows this call',
  unavailable: 'A dependency failed and nothing was kept; retry later',
  internal: 'Internal error; retry later',
};

const EXAMPLE_MESSAGES: Record<ErrorKind, string> = {
  validation: 'data.email is required',
  unauthorized: 'Missing X-Service-Access-Token header',
  forbidden: 'Forbidden',
  rate_limited: 'Too many requests',
  payload_too_large: 'Request body is larger than 262144 bytes',
  unprocessable: 'Unprocessable',
  not_found: 'Not found',
  conflict: 'Conflict',
  unavailable: 'Service unavailable; retry later',
};

/** The status and body an interface answers for an error kind, as `renderError` renders it. */
export const errorResponse = (api: ApiInterface, kind: ErrorKind, message = EXAMPLE_MESSAGES[kind]): ErrorResponse => {
  const reply = renderError(api, new AppError(kind, message, { retryAfterSeconds: 1 }));
  return { status: reply.statusCode, schema: shapeOf(reply.body), example: exampleOf(reply.body) };
};

/** The answer to anything unexpected (HTTP 500) in the interface's shape. */
export const internalErrorResponse = (api: ApiInterface): ErrorResponse => {
  const reply = renderInternalError(api);
  return { status: reply.statusCode, schema: shapeOf(reply.body), example: exampleOf(reply.body) };
};
