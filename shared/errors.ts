/**
 * The typed error family. Domain code and the HTTP wrapper throw these; each interface renders them in its own shape
 * (see `shared/http/responses.ts`). Anything that is not an `AppError` is an internal error: logged, answered 500, and its
 * message never shown to callers.
 */
export type ErrorKind =
  | 'validation'
  | 'unauthorized'
  | 'forbidden'
  | 'rate_limited'
  | 'payload_too_large'
  /** The request is well-formed but cannot be carried out as asked (a backtest past its time budget). */
  | 'unprocessable'
  | 'not_found'
  | 'conflict'
  | 'unavailable';

export class AppError extends Error {
  readonly kind: ErrorKind;
  /** Seconds a client should wait before retrying (rate limits). */
  readonly retryAfterSeconds: number | undefined;

  constructor(kind: ErrorKind, message: string, options: { retryAfterSeconds?: number; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'AppError';
    this.kind = kind;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

export const validationError = (message: string) => new AppError('validation', message);
export const unauthorized = (message = 'Invalid or missing X-Service-Access-Token') =>
  new AppError('unauthorized', message);
/** The caller is known but may not do this (e.g. a sub-account signing in through another main account's store). */
export const forbidden = (message: string) => new AppError('forbidden', message);
export const rateLimited = (retryAfterSeconds: number, message = 'Too many requests') =>
  new AppError('rate_limited', message, { retryAfterSeconds });
export const payloadTooLarge = (limitBytes: number) =>
  new AppError('payload_too_large', `Request body is larger than ${limitBytes} bytes`);
export const notFound = (message: string) => new AppError('not_found', message);
/** The request is valid but the resource is not in a state that allows it. */
export const conflict = (message: string) => new AppError('conflict', message);
/** A dependency failed in a way the caller should retry (the request left nothing behind). */
export const unavailable = (message: string, cause?: unknown) => new AppError('unavailable', message, { cause });

export const isAppError = (error: unknown): error is AppError => error instanceof AppError;

const THROTTLING_NAMES = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'Throttling',
  'RequestLimitExceeded',
  'TooManyRequestsException',
  'LimitExceededException',
  'SlowDown',
  'ServiceUnavailable',
  'InternalServerError',
]);

/**
 * A dependency's failure that a later retry may not meet (throttling, 5xx, or what the AWS SDK marks `$retryable`) after
 * the SDK's own retries gave up. Duck-typed so the HTTP layer needs no SDK import: callers are answered 503, "retry".
 */
export const isTransientDependencyError = (error: unknown): boolean => {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as { name?: unknown; $retryable?: unknown; $metadata?: { httpStatusCode?: unknown } };
  if (typeof e.name === 'string' && THROTTLING_NAMES.has(e.name)) return true;
  if (e.$retryable !== undefined && e.$retryable !== null) return true;
  const status = e.$metadata?.httpStatusCode;
  return typeof status === 'number' && status >= 500;
};

/**
 * A dependency's refusal that no retry can change: DynamoDB's `ValidationException` (an item over 400 KB, an attribute
 * it cannot store). Retrying it only holds the message (and, on a FIFO queue, its group) until the DLQ takes it.
 */
export const isPermanentDependencyError = (error: unknown): boolean => {
  if (typeof error !== 'object' || error === null || isTransientDependencyError(error)) return false;
  const name = (error as { name?: unknown }).name;
  return name === 'ValidationException';
};

/** JavaScript's own errors for a value the code cannot use: they come back on every attempt with the same data. */
const UNCURABLE_ERRORS = [TypeError, RangeError, SyntaxError, URIError] as const;

/**
 * An error that retrying cannot cure: the same data meets the same code and fails the same way on every attempt.
 * - JavaScript's errors for a value of the wrong type or out of range: `TypeError` (`(5).split`, `new Set({})`, a
 *   Node API given an array for a string), `RangeError` (an invalid date or length), `SyntaxError` (stored JSON that
 *   does not parse), `URIError`;
 * - a `validation` AppError: stored data checked again and refused.
 * Not a dependency's failure: an AWS SDK error (it carries `$metadata`, and throttling or a 5xx is transient) or a
 * wrapped one (fetch's `TypeError: fetch failed` carries the network error as its `cause`) may pass on a retry.
 */
export const isUncurableError = (error: unknown): boolean => {
  if (isAppError(error)) return error.kind === 'validation';
  if (!UNCURABLE_ERRORS.some((type) => error instanceof type)) return false;
  const e = error as Error & { $metadata?: unknown; $response?: unknown };
  return (
    e.cause === undefined && e.$metadata === undefined && e.$response === undefined && !isTransientDependencyError(e)
  );
};

/** Thrown by a queue record handler for input that no retry can fix: logged and acknowledged, never retried. */
export class PermanentError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PermanentError';
  }
}

/** Thrown by a queue record handler that scheduled its own retry: the record fails, and that is expected. */
export class RetryLater extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RetryLater';
  }
}
