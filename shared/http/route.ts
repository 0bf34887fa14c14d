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
import { dynamoRateLimiter } from '../adapters/dynamodb/rate-limiter.ts';
import { dynamoStoreRepository } from '../adapters/dynamodb/store.repository.ts';
import type { AuthenticatedStore } from '../domain/stores/store.ts';
import { isAppError, payloadTooLarge, rateLimited, validationError } from '../errors.ts';
import { logger } from '../observability.ts';
import { authenticate } from './authenticate.ts';
import { parseMultipart } from './multipart.ts';
import { type ApiInterface, type Reply, renderError, renderInternalError } from './responses.ts';

/** Default body limit: well under SQS's 1 MiB message limit and Lambda's 6 MB, ample for an order with many lines. */
export const DEFAULT_MAX_BODY_BYTES = 256 * 1024;

export interface RouteRequest<TBody> {
  readonly store: AuthenticatedStore;
  readonly body: TBody;
  readonly event: APIGatewayProxyEventV2;
}

export interface RouteOptions<TBody> {
  readonly api: ApiInterface;
  /** Per-store requests per second (spec "Limits"), counted in `bucket` across all instances. */
  readonly rateLimit?: { readonly bucket: string; readonly perSecond: number };
  /** Parses and validates the JSON body; throws a validation `AppError` naming the field and the rule. */
  readonly parseBody?: (body: unknown) => TBody;
  /** Read the body as `multipart/form-data` (handed to `parseBody` as a `MultipartBody`) instead of JSON. */
  readonly multipart?: boolean;
  readonly maxBodyBytes?: number;
  readonly handle: (request: RouteRequest<TBody>) => Promise<Reply>;
}

const clock = { now: () => Date.now() };
const stores = dynamoStoreRepository();
const limiter = dynamoRateLimiter(clock);

/** Bodies above this are gzipped for clients that accept it (a 5,000-contact export page, far below Lambda's 6 MB). */
const COMPRESS_ABOVE_BYTES = 8 * 1024;

const acceptsGzip = (event: APIGatewayProxyEventV2 | undefined) =>
  /\bgzip\b/i.test(event?.headers['accept-encoding'] ?? '');

const toResult = (reply: Reply, event?: APIGatewayProxyEventV2): APIGatewayProxyStructuredResultV2 => {
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8', ...reply.headers };
  const body = JSON.stringify(reply.body);
  if (body.length > COMPRESS_ABOVE_BYTES) headers.vary = 'accept-encoding';
  if (body.length > COMPRESS_ABOVE_BYTES && acceptsGzip(event)) {
    return {
      statusCode: reply.statusCode,
      headers: { ...headers, 'content-encoding': 'gzip' },
      body: gzipSync(body).toString('base64'),
      isBase64Encoded: true,
    };
  }
  return { statusCode: reply.statusCode, headers, body };
};

const readJsonBody = (event: APIGatewayProxyEventV2, maxBytes: number): unknown => {
  const raw = event.body ? Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8') : Buffer.alloc(0);
  if (raw.byteLength > maxBytes) throw payloadTooLarge(maxBytes);
  const contentType = event.headers['content-type'] ?? '';
  if (!/^application\/json\s*(;|$)/i.test(contentType)) {
    throw validationError('Content-Type must be application/json');
  }
  if (raw.byteLength === 0) throw validationError('body is required: a JSON object');
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw validationError('body is not valid JSON');
  }
};

const readMultipartBody = (event: APIGatewayProxyEventV2, maxBytes: number) => {
  const contentType = event.headers['content-type'] ?? '';
  if (!/^multipart\/form-data\s*;/i.test(contentType)) {
    throw validationError('Content-Type must be multipart/form-data');
  }
  const raw = event.body ? Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8') : Buffer.alloc(0);
  return parseMultipart(contentType, raw, maxBytes);
};

export const httpRoute = <TBody = undefined>(options: RouteOptions<TBody>) => {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;

  const core = async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => {
    const now = clock.now();
    // Authentication first, so an anonymous caller learns nothing about the body rules.
    const store = await authenticate(stores, event.headers['x-service-access-token'], now);
    logger.appendKeys({ storeId: store.storeId });
    if (options.rateLimit) {
      const verdict = await limiter.take(`${store.storeId}#${options.rateLimit.bucket}`, options.rateLimit.perSecond);
      if (!verdict.allowed) throw rateLimited(verdict.retryAfterSeconds);
    }
    const body = options.parseBody
      ? options.parseBody(
          options.multipart ? await readMultipartBody(event, maxBodyBytes) : readJsonBody(event, maxBodyBytes),
        )
      : (undefined as TBody);
    return toResult(await options.handle({ store, body, event }), event);
  };

  const renderErrors: middy.MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2> = {
    onError: (request) => {
      const { error } = request;
      if (isAppError(error)) {
        if (error.kind === 'unavailable') logger.error('Dependency unavailable', { error: error.cause ?? error });
        request.response = toResult(renderError(options.api, error));
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
