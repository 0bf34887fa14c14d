/**
 * Response shapes, one per interface, in one place. The spec gives every interface its own body shape; the HTTP wrapper
 * renders successes and `AppError`s through these and nothing else writes a response body.
 *
 * HTTP status: the status line carries the body's `code`, except for the duplicate answer (`code: 304`), which is sent
 * with HTTP 200 because an HTTP 304 response may not carry a body and clients would drop the message.
 */
import type { AppError, ErrorKind } from '../errors.ts';

/** The interfaces of the spec, each with its own response shape. */
export type ApiInterface = 'events' | 'headless' | 'webhooks' | 'export' | 'import';

export interface Reply {
  readonly statusCode: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** HTTP status per error kind; the events interfaces answer validation failures with the spec's 412. */
const COMMON: Record<Exclude<ErrorKind, 'validation'>, number> = {
  unauthorized: 401,
  rate_limited: 429,
  payload_too_large: 413,
  not_found: 404,
  conflict: 409,
  unavailable: 503,
};

/** HTTP status per error kind: the event interfaces answer validation failures 412, the others 400 (spec "Errors"). */
const STATUS: Record<ApiInterface, Record<ErrorKind, number>> = {
  events: { ...COMMON, validation: 412 },
  headless: { ...COMMON, validation: 412 },
  webhooks: { ...COMMON, validation: 400 },
  export: { ...COMMON, validation: 400 },
  import: { ...COMMON, validation: 400 },
};

const retryHeaders = (error: AppError): Record<string, string> =>
  error.retryAfterSeconds === undefined ? {} : { 'retry-after': String(error.retryAfterSeconds) };

/** The OAuth and batch import shape: `{message, state, success, timestamp}` (timestamp in milliseconds). */
const stateBody = (state: number, message: string, data?: unknown) => ({
  message,
  state,
  success: state === 200,
  timestamp: Date.now(),
  ...(data === undefined ? {} : { data }),
});

/** An error body in the interface's shape. */
const errorBody = (api: ApiInterface, code: number, message: string) => {
  if (api === 'headless') return { success: false, code, message };
  if (api === 'import') return stateBody(code, message);
  return { code, message };
};

export const renderError = (api: ApiInterface, error: AppError): Reply => {
  const code = STATUS[api][error.kind];
  return { statusCode: code, body: errorBody(api, code, error.message), headers: retryHeaders(error) };
};

/** The answer to anything that is not an `AppError`: no internals leak. */
export const renderInternalError = (api: ApiInterface): Reply => ({
  statusCode: 500,
  body: errorBody(api, 500, 'Internal error; retry later'),
});

export const DUPLICATE_MESSAGE = 'SourceId already exist';

/** General event interface: `{code, message}`. */
export const eventsReply = {
  accepted: (): Reply => ({ statusCode: 200, body: { code: 200, message: 'ok' } }),
  duplicate: (): Reply => ({ statusCode: 200, body: { code: 304, message: DUPLICATE_MESSAGE } }),
};

/** Webhook management (and the service's additions in the same style): `{code: 200, data}`. */
export const webhooksReply = {
  ok: (data: unknown): Reply => ({ statusCode: 200, body: { code: 200, data } }),
};

/** Batch import: `{message, state: 200, success: true, timestamp, data}` (the job). */
export const importReply = {
  ok: (message: string, data: unknown): Reply => ({ statusCode: 200, body: stateBody(200, message, data) }),
};

/** Contact export: the page object itself (`{page, page_size, total_count, total_pages, data}`). */
export const exportReply = {
  page: (page: unknown): Reply => ({ statusCode: 200, body: page }),
};

/** Headless event interface: `{success: true}` or `{success: false, code, message}`. */
export const headlessReply = {
  accepted: (): Reply => ({ statusCode: 200, body: { success: true } }),
  duplicate: (): Reply => ({ statusCode: 200, body: { success: false, code: 304, message: DUPLICATE_MESSAGE } }),
};
