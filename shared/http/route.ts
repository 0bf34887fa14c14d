/**
 * The one HTTP wrapper: every HTTP handler is `httpRoute({...})`. One middy composition, in this order:
 * observability → header normalizer → body (content type, size, JSON) → store authentication → per-store rate limit →
 * validation → handler; the error renderer answers every failure in the interface's own shape (see `responses.ts`).
 */
import { gzipSync } from 'node:zlib';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type * as v from 'valibot';
import type { AuthenticatedStore } from '#shared/domain/stores/model.ts';
import { parseOrThrow } from '#shared/domain/validation.ts';
import {
  forbidden,
  isAppError,
  isTransientDependencyError,
  rateLimited,
  unauthorized,
  unavailable,
} from '#shared/errors.ts';
import { logger } from '#shared/observability.ts';
import { httpRouteDeps } from '#shared/wiring/http.ts';
import { authenticate } from './authenticate.ts';
import { readFormBody, readJsonBody, readMultipartBody } from './body.ts';
import { withStandingBanner } from './console/standing-banner.ts';
import { corsHeaders, originAllowed, PUBLISHABLE_KEY_BROWSERS_ONLY, PUBLISHABLE_KEY_ONLY } from './cors.ts';
import type { Reply } from './reply.ts';
import { type ApiInterface, renderError, renderInternalError } from './responses.ts';

/** Default body limit: well under SQS's 1 MiB message limit and Lambda's 6 MB, ample for an order with many lines. */
export const DEFAULT_MAX_BODY_BYTES = 256 * 1024;

export interface RouteRequest<TBody, TQuery = undefined, TPath = undefined> {
  readonly store: AuthenticatedStore;
  readonly body: TBody;
  /** The query string, as its `query` schema read it. */
  readonly query: TQuery;
  /** The route's path parameters, as its `path` schema read them. */
  readonly path: TPath;
  readonly event: APIGatewayProxyEventV2;
}

/**
 * How a part of the request is read: a valibot schema (its issues answered as the interface's validation error, naming
 * the field and the rule), or a parser that throws that error itself where the spec words its messages.
 */
export type InputSchema<T, Raw = unknown> = v.GenericSchema<unknown, T> | ((raw: Raw) => T);

/** Query string and path parameters as API Gateway hands them over. */
export type Parameters = Readonly<Record<string, string | undefined>>;

const readInput = <T, Raw>(schema: InputSchema<T, Raw> | undefined, raw: Raw): T => {
  if (schema === undefined) return undefined as T;
  return typeof schema === 'function' ? schema(raw) : parseOrThrow(schema, raw);
};

export interface RouteOptions<TBody, TQuery = undefined, TPath = undefined> {
  readonly api: ApiInterface;
  /** `store` (the default): the `X-Service-Access-Token` header is required. See {@link PublicRouteOptions}. */
  readonly auth?: 'store';
  /** Per-store requests per second (spec "Limits"), counted in `bucket` across all instances. */
  readonly rateLimit?: { readonly bucket: string; readonly perSecond: number };
  /** The JSON body (read, size- and depth-checked first); without it the body is not read. */
  readonly body?: InputSchema<TBody>;
  /** The query string parameters (`{}` when there are none). */
  readonly query?: InputSchema<TQuery, Parameters>;
  /** The path parameters of the catalog route (`{flowId}` …). */
  readonly path?: InputSchema<TPath, Parameters>;
  /**
   * Checked after the path and query, before the body is read: throws `not_found` for a resource the store does not
   * have, so another store's id answers 404 whatever the body (`PUT /api/v1/flows/{flowId}`).
   */
  readonly found?: (request: { readonly store: AuthenticatedStore; readonly path: TPath }) => Promise<void>;
  /** Read the body as `multipart/form-data` (handed to `body` as a `MultipartBody`) instead of JSON. */
  readonly multipart?: boolean;
  /** Read the body as an HTML form (`application/x-www-form-urlencoded`, handed to `body` as its fields). */
  readonly form?: boolean;
  /**
   * Also takes the store's publishable key (`pk_…`), from browsers on the store's allowed origins only (CORS, see
   * `cors.ts`). Every other route answers a publishable key 401.
   */
  readonly publishableKey?: boolean;
  readonly maxBodyBytes?: number;
  readonly handle: (request: RouteRequest<TBody, TQuery, TPath>) => Promise<Reply>;
}

/**
 * A route without the store key (`auth: 'none'`): links opened in a browser (OAuth sign-in callback, back office,
 * unsubscribe), which check their caller themselves (a single-use token, a session cookie). No per-store rate limit.
 */
export interface PublicRouteOptions<TBody, TQuery = undefined, TPath = undefined>
  extends Omit<RouteOptions<TBody, TQuery, TPath>, 'auth' | 'rateLimit' | 'found' | 'handle'> {
  readonly auth: 'none';
  readonly handle: (request: Omit<RouteRequest<TBody, TQuery, TPath>, 'store'>) => Promise<Reply>;
}

/** Bodies above this are gzipped for clients that accept it (a 5,000-contact export page, far below Lambda's 6 MB). */
const COMPRESS_ABOVE_BYTES = 8 * 1024;

const acceptsGzip = (event: APIGatewayProxyEventV2 | undefined) =>
  /\bgzip\b/i.test(event?.headers['accept-encoding'] ?? '');

const toResult = (reply: Reply, event?: APIGatewayProxyEventV2): APIGatewayProxyStructuredResultV2 => {
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8', ...reply.headers };
  const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
  // A console page of a store the sending guard warned or paused says so at its top.
  const body = event ? withStandingBanner(event, text) : text;
  const cookies = reply.cookies?.length ? { cookies: [...reply.cookies] } : {};
  if (body.length > COMPRESS_ABOVE_BYTES) headers.vary = 'accept-encoding';
  if (body.length > COMPRESS_ABOVE_BYTES && acceptsGzip(event)) {
    return {
      statusCode: reply.statusCode,
      headers: { ...headers, 'content-encoding': 'gzip' },
      body: gzipSync(body).toString('base64'),
      isBase64Encoded: true,
      ...cookies,
    };
  }
  return { statusCode: reply.statusCode, headers, body, ...cookies };
};

/** Middy's early answer before the invocation's time runs out (`timeoutEarlyResponse`). */
const isTimeout = (error: unknown): boolean => error instanceof Error && error.name === 'TimeoutError';

export const httpRoute = <TBody = undefined, TQuery = undefined, TPath = undefined>(
  options: RouteOptions<TBody, TQuery, TPath> | PublicRouteOptions<TBody, TQuery, TPath>,
) => {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  /** The allowed browser origin of each request that used the publishable key from a page. */
  const corsOrigins = new WeakMap<APIGatewayProxyEventV2, string>();
  /**
   * Path, query, then body: the request as the handler receives it, every part read through its schema. The body is
   * read (size, content type, JSON) before `found` and checked against its schema after it.
   */
  const readRequest = async (event: APIGatewayProxyEventV2, store?: AuthenticatedStore) => {
    const path = readInput<TPath, Parameters>(options.path, event.pathParameters ?? {});
    const query = readInput<TQuery, Parameters>(options.query, event.queryStringParameters ?? {});
    const multipart = options.multipart && options.body;
    const raw = multipart
      ? await readMultipartBody(event, maxBodyBytes)
      : options.form && options.body
        ? // A page showing its form (GET) has no body yet: its fields are all absent.
          event.requestContext?.http?.method === 'GET'
          ? {}
          : readFormBody(event, maxBodyBytes)
        : options.body && readJsonBody(event, maxBodyBytes);
    if (store && options.auth !== 'none') await options.found?.({ store, path });
    const body = options.body ? readInput(options.body, raw) : (undefined as TBody);
    return { path, query, body, event };
  };

  const core = async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => {
    // API Gateway's request id, the one its access log records: a log line and an access log entry match on it.
    logger.appendKeys({ requestId: event.requestContext?.requestId });
    if (options.auth === 'none') return toResult(await options.handle(await readRequest(event)), event);
    const { stores, limiter, clock } = httpRouteDeps();
    const now = clock.now();
    // Authentication first, so an anonymous caller learns nothing about the body rules.
    const store = await authenticate(stores, event.headers['x-service-access-token'], now);
    logger.appendKeys({ storeId: store.storeId });
    if (store.publishable) {
      if (!options.publishableKey) throw unauthorized(PUBLISHABLE_KEY_ONLY);
      // Browsers always send Origin on a POST: a request without one is a server's, which has the store key.
      const origin = event.headers.origin;
      if (origin === undefined) throw forbidden(PUBLISHABLE_KEY_BROWSERS_ONLY);
      if (!originAllowed(origin, store.publishable.allowedOrigins)) {
        throw forbidden(`Origin ${origin} is not allowed to use this store's publishable key`);
      }
      corsOrigins.set(event, origin);
    }
    if (options.rateLimit) {
      const verdict = await limiter.take(`${store.storeId}#${options.rateLimit.bucket}`, options.rateLimit.perSecond);
      if (!verdict.allowed) throw rateLimited(verdict.retryAfterSeconds);
    }
    return toResult(await options.handle({ store, ...(await readRequest(event, store)) }), event);
  };

  /** Answers to an allowed browser origin carry its CORS headers, errors included, so the page can read them. */
  const withCors = (event: APIGatewayProxyEventV2, result: APIGatewayProxyStructuredResultV2) => {
    const origin = corsOrigins.get(event);
    return origin === undefined ? result : { ...result, headers: { ...result.headers, ...corsHeaders(origin) } };
  };

  const renderErrors: middy.MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2> = {
    onError: (request) => {
      const { error } = request;
      if (isAppError(error)) {
        if (error.kind === 'unavailable') logger.error('Dependency unavailable', { error: error.cause ?? error });
        request.response = withCors(request.event, toResult(renderError(options.api, error)));
        return;
      }
      if (isTransientDependencyError(error)) {
        // Throttled or failing after the SDK's retries: nothing was half-written (writes are conditional or undone),
        // so the caller is told to retry rather than handed an opaque 500.
        logger.error('Dependency unavailable', { error });
        request.response = withCors(
          request.event,
          toResult(renderError(options.api, unavailable('A dependency is busy; retry the request', error))),
        );
        return;
      }
      if (isTimeout(error)) {
        // Middy answers just before Lambda's limit (a slow dependency, an overloaded host). Deployed, Lambda would end
        // the invocation and API Gateway answer a bare 5xx; here the caller gets the interface's 503 and a retry hint.
        logger.error('Invocation timed out', { error });
        request.response = withCors(
          request.event,
          toResult(renderError(options.api, unavailable('The service is busy and the request timed out; retry it'))),
        );
        return;
      }
      logger.error('Unhandled error', { error });
      request.response = withCors(request.event, toResult(renderInternalError(options.api)));
    },
  };

  const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, Context>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(httpHeaderNormalizer())
    .use(renderErrors)
    .handler(async (event) => withCors(event, await core(event)));
  // What the stacks must grant for it: a rate-limited route writes its store's rate counters (test/infra reads this).
  return Object.assign(handler, { rateLimited: options.auth !== 'none' && options.rateLimit !== undefined });
};
