/**
 * Response shapes, one per interface, in one place. The spec gives every interface its own body shape; the HTTP wrapper
 * renders successes and `AppError`s through these and nothing else writes a response body.
 *
 * HTTP status: the status line carries the body's `code`, except for the duplicate answer (`code: 304`), which is sent
 * with HTTP 200 because an HTTP 304 response may not carry a body and clients would drop the message.
 */
import type { AppError, ErrorKind } from '../errors.ts';

/** The interfaces of the spec, each with its own response shape. */
export type ApiInterface = 'events' | 'headless' | 'webhooks' | 'export';

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
};

const retryHeaders = (error: AppError): Record<string, string> =>
  error.retryAfterSeconds === undefined ? {} : { 'retry-after': String(error.retryAfterSeconds) };

export const renderError = (api: ApiInterface, error: AppError): Reply => {
  const code = STATUS[api][error.kind];
  const body = api === 'headless' ? { success: false, code, message: error.message } : { code, message: error.message };
  return { statusCode: code, body, headers: retryHeaders(error) };
};

/** The answer to anything that is not an `AppError`: no internals leak. */
export const renderInternalError = (api: ApiInterface): Reply => {
  const message = 'Internal error; retry later';
  return {
    statusCode: 500,
    body: api === 'headless' ? { success: false, code: 500, message } : { code: 500, message },
  };
};

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

/** Contact export: the page object itself (`{page, page_size, total_count, total_pages, data}`). */
export const exportReply = {
  page: (page: unknown): Reply => ({ statusCode: 200, body: page }),
};

/** Headless event interface: `{success: true}` or `{success: false, code, message}`. */
export const headlessReply = {
  accepted: (): Reply => ({ statusCode: 200, body: { success: true } }),
  duplicate: (): Reply => ({ statusCode: 200, body: { success: false, code: 304, message: DUPLICATE_MESSAGE } }),
};
