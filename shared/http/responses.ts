/**
 * Response shapes, one per interface, in one place. The spec gives every interface its own body shape; the HTTP wrapper
 * renders successes and `AppError`s through these and nothing else writes a response body.
 *
 * HTTP status: the status line carries the body's `code`, except for the duplicate answer (`code: 304`), which is sent
 * with HTTP 200 because an HTTP 304 response may not carry a body and clients would drop the message.
 */
import { systemClock } from '#shared/clock.ts';
import type { AppError, ErrorKind } from '#shared/errors.ts';
import { htmlPage } from './back-office-pages.ts';
import type { Reply } from './reply.ts';

/** The interfaces of the spec, each with its own response shape. */
export type ApiInterface =
  | 'events'
  | 'headless'
  | 'webhooks'
  | 'export'
  | 'import'
  | 'oauth'
  | 'backOffice'
  | 'sending';

/** HTTP status per error kind; the events interfaces answer validation failures with the spec's 412. */
const COMMON: Record<Exclude<ErrorKind, 'validation'>, number> = {
  unauthorized: 401,
  forbidden: 403,
  rate_limited: 429,
  payload_too_large: 413,
  unprocessable: 422,
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
  oauth: { ...COMMON, validation: 400 },
  backOffice: { ...COMMON, validation: 400 },
  sending: { ...COMMON, validation: 400 },
};

const retryHeaders = (error: AppError): Record<string, string> =>
  error.retryAfterSeconds === undefined ? {} : { 'retry-after': String(error.retryAfterSeconds) };

/** The OAuth sign-in and batch import shape: `{message, state, success, timestamp}` (timestamp in milliseconds). */
const stateBody = (state: number, message: string, data?: unknown) => ({
  message,
  state,
  success: state === 200,
  timestamp: systemClock.now(),
  ...(data === undefined ? {} : { data }),
});

/** An error body in the interface's shape. */
const errorBody = (api: ApiInterface, code: number, message: string) => {
  if (api === 'headless') return { success: false, code, message };
  if (api === 'import' || api === 'oauth') return stateBody(code, message);
  // Bulk sending: the spec's response shape, with `code` a String and nothing accepted.
  if (api === 'sending')
    return { totalAccepted: 0, totalRejected: 0, id: null, code: String(code), succeed: false, message };
  return { code, message };
};

export const renderError = (api: ApiInterface, error: AppError): Reply => {
  const code = STATUS[api][error.kind];
  if (api === 'backOffice') return htmlPage(code, 'Something went wrong', error.message, retryHeaders(error));
  return { statusCode: code, body: errorBody(api, code, error.message), headers: retryHeaders(error) };
};

/** The answer to anything that is not an `AppError`: no internals leak. */
export const renderInternalError = (api: ApiInterface): Reply =>
  api === 'backOffice'
    ? htmlPage(500, 'Something went wrong', 'Internal error; retry later')
    : { statusCode: 500, body: errorBody(api, 500, 'Internal error; retry later') };

export const DUPLICATE_MESSAGE = 'SourceId already exist';

/** General event interface: `{code, message}`. */
export const eventsReply = {
  accepted: (): Reply => ({ statusCode: 200, body: { code: 200, message: 'ok' } }),
  duplicate: (): Reply => ({ statusCode: 200, body: { code: 304, message: DUPLICATE_MESSAGE } }),
};

/** Webhook management (and the service's additions in the same style): `{code: 200, data}`. */
export const webhooksReply = {
  ok: (data: unknown): Reply => ({ statusCode: 200, body: { code: 200, data } }),
  /** Accepted: the work goes on in the background (a campaign's send). */
  accepted: (data: unknown): Reply => ({ statusCode: 202, body: { code: 202, data } }),
};

/** Batch import: `{message, state: 200, success: true, timestamp, data}` (the job). */
export const importReply = {
  ok: (message: string, data: unknown): Reply => ({ statusCode: 200, body: stateBody(200, message, data) }),
};

/** OAuth sign-in: `{data: {oauthUrl}, message, state: 200, success: true, timestamp}` (timestamp in milliseconds). */
export const oauthReply = {
  ok: (message: string, data: { oauthUrl: string }): Reply => ({
    statusCode: 200,
    body: stateBody(200, message, data),
  }),
};

/**
 * Bulk sending: `{totalAccepted, totalRejected, id, code: "200", succeed: true, message, ...}` (the spec's shape, `code`
 * a String); the batch read adds its progress to the same fields.
 */
export const sendingReply = {
  ok: (message: string, data: Record<string, unknown> & { id: string }): Reply => ({
    statusCode: 200,
    body: { ...data, code: '200', succeed: true, message },
  }),
};

/** Contact export: the page object itself (`{page, page_size, total_count, total_pages, data}`). */
/**
 * Lambda's limit on a synchronous response (6 MB = 6 MiB), less room for the status, headers and the result's own
 * JSON: what a function may answer through API Gateway.
 */
export const LAMBDA_RESPONSE_LIMIT_BYTES = 6 * 1024 * 1024;
const RESULT_OVERHEAD_BYTES = 16 * 1024;

/** Whether `json` fits in one Lambda response uncompressed (the body is escaped once more inside the result's JSON). */
export const fitsOneResponse = (json: string): boolean =>
  Buffer.byteLength(JSON.stringify(json)) + RESULT_OVERHEAD_BYTES <= LAMBDA_RESPONSE_LIMIT_BYTES;

export const exportReply = {
  /** A page in the response. */
  ok: (page: unknown): Reply => ({ statusCode: 200, body: page }),
  /**
   * A page, in the response when it fits (gzip-compressed for clients that accept it); a larger one (possible only for
   * contacts near their exported-record budget) is put aside by `elsewhere` and answered with `303 See Other` to a
   * link that serves the same JSON, which HTTP clients follow for a GET.
   */
  page: async (page: unknown, elsewhere: (json: string) => Promise<string>): Promise<Reply> => {
    const json = JSON.stringify(page);
    if (fitsOneResponse(json)) return exportReply.ok(json);
    const location = await elsewhere(json);
    return {
      statusCode: 303,
      headers: { location },
      body: { code: 303, message: 'This page is larger than one response: GET it from the location within 5 minutes' },
    };
  },
};

/** Headless event interface: `{success: true}` or `{success: false, code, message}`. */
export const headlessReply = {
  accepted: (): Reply => ({ statusCode: 200, body: { success: true } }),
  duplicate: (): Reply => ({ statusCode: 200, body: { success: false, code: 304, message: DUPLICATE_MESSAGE } }),
};
