/**
 * The parts of the service's own AWS clients that do not depend on the service (issues 13 and 16): the DynamoDB client
 * (`dynamodb-client.ts`) and the SQS client (`sqs-client.ts`) both speak AWS JSON 1.0 and read answers, raise errors and
 * run middlewares as the SDK does. What is here: the JSON codec's base64 for binary values, reading an answer's body,
 * its `$metadata`, the SDK's error names and `ServiceException`s, an unreadable answer's error, and the middleware
 * stack (the SDK's steps, names and relative placement, sorted once per change) that the client observers, the local
 * lean clients, the contract recorder, the bench's counters and the fault-injection tests use.
 */
import { ServiceException } from '@smithy/core/client';
import type { HttpResponse } from '@smithy/core/transport';

export type Json = Record<string, unknown>;

// ---------------------------------------------------------------------------------------------------------------
// JSON with binary values (the SDK's JSON codec: blobs as base64).

/** A `JSON.stringify` replacer: Uint8Arrays (binary values) as base64; used only when a body has any. */
export function binaryAsBase64(this: Json, key: string, value: unknown): unknown {
  const raw = this[key];
  return raw instanceof Uint8Array ? Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('base64') : value;
}

export const fromBase64 = (text: string): Uint8Array => {
  const bytes = Buffer.from(text, 'base64');
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
};

// ---------------------------------------------------------------------------------------------------------------
// Answers and errors.

export const readBody = async (body: unknown): Promise<string> => {
  if (body === undefined || body === null) return '';
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  const chunks: Uint8Array[] = [];
  for await (const chunk of body as AsyncIterable<Uint8Array | string>)
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
};

export const metadataOf = (response: HttpResponse) => ({
  httpStatusCode: response.statusCode,
  requestId:
    response.headers['x-amzn-requestid'] ??
    response.headers['x-amzn-request-id'] ??
    response.headers['x-amz-request-id'],
  extendedRequestId: response.headers['x-amz-id-2'],
  cfId: response.headers['x-amz-cf-id'],
});

/** The SDK's `sanitizeErrorCode`: `aws.dynamodb#Name:…` → `Name`. */
export const errorCode = (raw: unknown): string | undefined => {
  if (raw === undefined || raw === null) return undefined;
  let code = String(raw);
  if (code.includes(',')) code = code.split(',')[0] as string;
  if (code.includes(':')) code = code.split(':')[0] as string;
  if (code.includes('#')) code = code.split('#')[1] as string;
  return code;
};

/** A service's modeled errors: the SDK takes their `$fault` from the model, every other error's from the status. */
export interface ErrorModel {
  readonly modeled: ReadonlySet<string>;
  /** The modeled errors of the server's fault (every other modeled one is the client's). */
  readonly server: ReadonlySet<string>;
}

/** The error's name as the SDK's JSON 1.0 protocol reads it: `__type`, then `code`, then `x-amzn-errortype`. */
export const jsonErrorName = (response: HttpResponse, data: Json): string =>
  errorCode(data.__type) ?? errorCode(data.code) ?? errorCode(response.headers['x-amzn-errortype']) ?? 'Unknown';

/** A non-2xx answer as the SDK's JSON 1.0 protocol raises it. */
export const serviceError = (
  response: HttpResponse,
  data: Json,
  model: ErrorModel,
  name: string = jsonErrorName(response, data),
): ServiceException => {
  const message = (data.message ?? data.Message ?? 'UnknownError') as string;
  const fault = model.modeled.has(name)
    ? model.server.has(name)
      ? 'server'
      : 'client'
    : response.statusCode < 500
      ? 'client'
      : 'server';
  const error = new ServiceException({ name, message, $fault: fault, $metadata: metadataOf(response) as never });
  // The answer's other members (a failed condition's `Item`, a cancelled transaction's reasons, `__type`), as the
  // SDK's `decorateServiceException` adds them.
  for (const [key, value] of Object.entries(data)) {
    if (key === 'message' || key === 'Message' || value === undefined) continue;
    const own = (error as unknown as Json)[key];
    if (own === undefined || own === null || own === '') (error as unknown as Json)[key] = value;
  }
  return Object.assign(error, { $response: response });
};

/**
 * An answer that is not JSON (a proxy's page), as the SDK's deserializer middleware raises it: the parser's
 * `SyntaxError` with a hint, `$metadata` and a hidden `$response` (retried when the status is, e.g. a 503).
 */
export const unreadable = (error: unknown, response: HttpResponse): unknown => {
  if (!(error instanceof Error)) return error;
  error.message +=
    '\n  Deserialization error: to see the raw response, inspect the hidden field {error}.$response on this object.';
  Object.defineProperty(error, '$response', { value: response, enumerable: false });
  return Object.assign(error, { $metadata: metadataOf(response) });
};

// ---------------------------------------------------------------------------------------------------------------
// The middleware stack: the SDK's semantics for what the observers use, sorted once per change.

export type Step = 'initialize' | 'serialize' | 'build' | 'finalizeRequest' | 'deserialize';
type Priority = 'high' | 'normal' | 'low';
/** What a middleware sees: the SDK's context fields that the observers read. */
export interface MiddlewareContext {
  readonly clientName: string;
  readonly commandName: string;
  [key: string]: unknown;
}
export interface Args {
  input: Json;
  request?: unknown;
}
export interface Result {
  response: unknown;
  output: Json;
}
export type Handler = (args: Args) => Promise<Result>;
export type Middleware = (next: Handler, context: MiddlewareContext) => Handler;

interface Entry {
  readonly name: string;
  readonly middleware: Middleware;
  readonly step?: Step;
  readonly priority?: Priority;
  readonly relation?: 'before' | 'after';
  readonly toMiddleware?: string;
}

const STEPS: readonly Step[] = ['initialize', 'serialize', 'build', 'finalizeRequest', 'deserialize'];
const PRIORITIES: readonly Priority[] = ['high', 'normal', 'low'];

/** A middleware stack with the parts of the SDK's that the client observers use. */
export class MiddlewareStack {
  #entries: Entry[] = [];
  #sorted: Middleware[] | undefined;

  add(middleware: Middleware, options: { step?: Step; name: string; priority?: Priority; override?: boolean }): void {
    this.#insert({
      name: options.name,
      middleware,
      step: options.step ?? 'initialize',
      priority: options.priority ?? 'normal',
    });
  }

  addRelativeTo(
    middleware: Middleware,
    options: { name: string; relation: 'before' | 'after'; toMiddleware: string; override?: boolean },
  ): void {
    this.#insert({ name: options.name, middleware, relation: options.relation, toMiddleware: options.toMiddleware });
  }

  remove(name: string): boolean {
    const before = this.#entries.length;
    this.#entries = this.#entries.filter((entry) => entry.name !== name);
    this.#sorted = undefined;
    return this.#entries.length !== before;
  }

  /** `name - step` of each, outermost first (as the SDK's `identify`). */
  identify(): string[] {
    return this.#order().map((entry) => `${entry.name} - ${entry.step ?? entry.relation ?? ''}`);
  }

  /** Middlewares outermost first (cached until the stack changes). */
  resolved(): readonly Middleware[] {
    this.#sorted ??= this.#order().map((entry) => entry.middleware);
    return this.#sorted;
  }

  #insert(entry: Entry): void {
    // One middleware per name: a later one replaces it (the SDK throws unless `override`; the observers check first).
    this.#entries = this.#entries.filter((existing) => existing.name !== entry.name);
    this.#entries.push(entry);
    this.#sorted = undefined;
  }

  #order(): Entry[] {
    const absolute = this.#entries
      .filter((entry) => entry.step !== undefined)
      .sort(
        (a, b) =>
          STEPS.indexOf(a.step as Step) - STEPS.indexOf(b.step as Step) ||
          PRIORITIES.indexOf(a.priority as Priority) - PRIORITIES.indexOf(b.priority as Priority),
      );
    const relative = this.#entries.filter((entry) => entry.step === undefined);
    const expand = (entry: Entry): Entry[] => {
      const before = relative.filter((r) => r.toMiddleware === entry.name && r.relation === 'before');
      // As the SDK's: the last one added after a middleware is the nearest to it.
      const after = relative.filter((r) => r.toMiddleware === entry.name && r.relation === 'after').reverse();
      return [...before.flatMap(expand), entry, ...after.flatMap(expand)];
    };
    return absolute.flatMap(expand);
  }
}
