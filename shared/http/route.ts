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
import type { AuthenticatedStore } from '#shared/domain/stores/model.ts';
import { isAppError, isTransientDependencyError, rateLimited, unavailable } from '#shared/errors.ts';
import { logger } from '#shared/observability.ts';
import { httpRouteDeps } from '#shared/wiring/http.ts';
import { authenticate } from './authenticate.ts';
import { readJsonBody, readMultipartBody } from './body.ts';
import type { Reply } from './reply.ts';
import { type ApiInterface, renderError, renderInternalError } from './responses.ts';

/** Default body limit: well under SQS's 1 MiB message limit and Lambda's 6 MB, ample for an order with many lines. */
export const DEFAULT_MAX_BODY_BYTES = 256 * 1024;

export interface RouteRequest<TBody> {
  readonly store: AuthenticatedStore;
  readonly body: TBody;
  readonly event: APIGatewayProxyEventV2;
}

export interface RouteOptions<TBody> {
  readonly api: ApiInterface;
  /** `store` (the default): the `X-Service-Access-Token` header is required. See {@link PublicRouteOptions}. */
  readonly auth?: 'store';
  /** Per-store requests per second (spec "Limits"), counted in `bucket` across all instances. */
  readonly rateLimit?: { readonly bucket: string; readonly perSecond: number };
  /** Parses and validates the JSON body; throws a validation `AppError` naming the field and the rule. */
  readonly parseBody?: (body: unknown) => TBody;
  /** Read the body as `multipart/form-data` (handed to `parseBody` as a `MultipartBody`) instead of JSON. */
  readonly multipart?: boolean;
  readonly maxBodyBytes?: number;
  readonly handle: (request: RouteRequest<TBody>) => Promise<Reply>;
}

/**
 * A route without the store key (`auth: 'none'`): links opened in a browser (OAuth sign-in callback, back office,
 * unsubscribe), which check their caller themselves (a single-use token, a session cookie). No per-store rate limit.
 */
export interface PublicRouteOptions<TBody> extends Omit<RouteOptions<TBody>, 'auth' | 'rateLimit' | 'handle'> {
  readonly auth: 'none';
  readonly handle: (request: Omit<RouteRequest<TBody>, 'store'>) => Promise<Reply>;
}

/** Bodies above this are gzipped for clients that accept it (a 5,000-contact export page, far below Lambda's 6 MB). */
const COMPRESS_ABOVE_BYTES = 8 * 1024;

const acceptsGzip = (event: APIGatewayProxyEventV2 | undefined) =>
  /\bgzip\b/i.test(event?.headers['accept-encoding'] ?? '');

const toResult = (reply: Reply, event?: APIGatewayProxyEventV2): APIGatewayProxyStructuredResultV2 => {
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8', ...reply.headers };
  const body = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
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

export const httpRoute = <TBody = undefined>(options: RouteOptions<TBody> | PublicRouteOptions<TBody>) => {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const readBody = async (event: APIGatewayProxyEventV2): Promise<TBody> =>
    options.parseBody
      ? options.parseBody(
          options.multipart ? await readMultipartBody(event, maxBodyBytes) : readJsonBody(event, maxBodyBytes),
        )
      : (undefined as TBody);

  const core = async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => {
    // API Gateway's request id, the one its access log records: a log line and an access log entry match on it.
    logger.appendKeys({ requestId: event.requestContext?.requestId });
    if (options.auth === 'none') return toResult(await options.handle({ body: await readBody(event), event }), event);
    const { stores, limiter, clock } = httpRouteDeps();
    const now = clock.now();
    // Authentication first, so an anonymous caller learns nothing about the body rules.
    const store = await authenticate(stores, event.headers['x-service-access-token'], now);
    logger.appendKeys({ storeId: store.storeId });
    if (options.rateLimit) {
      const verdict = await limiter.take(`${store.storeId}#${options.rateLimit.bucket}`, options.rateLimit.perSecond);
      if (!verdict.allowed) throw rateLimited(verdict.retryAfterSeconds);
    }
    return toResult(await options.handle({ store, body: await readBody(event), event }), event);
  };

  const renderErrors: middy.MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2> = {
    onError: (request) => {
      const { error } = request;
      if (isAppError(error)) {
        if (error.kind === 'unavailable') logger.error('Dependency unavailable', { error: error.cause ?? error });
        request.response = toResult(renderError(options.api, error));
        return;
      }
      if (isTransientDependencyError(error)) {
        // Throttled or failing after the SDK's retries: nothing was half-written (writes are conditional or undone),
        // so the caller is told to retry rather than handed an opaque 500.
        logger.error('Dependency unavailable', { error });
        request.response = toResult(
          renderError(options.api, unavailable('A dependency is busy; retry the request', error)),
        );
        return;
      }
      logger.error('Unhandled error', { error });
      request.response = toResult(renderInternalError(options.api));
    },
  };

  return middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, Context>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(httpHeaderNormalizer())
    .use(renderErrors)
    .handler(core);
};
