/**
 * The parts of the service's own AWS clients that do not depend on the service: the DynamoDB client
 * (`dynamodb-client.ts`) and the SQS client (`sqs-client.ts`) both speak AWS JSON 1.0 and read answers, raise errors and
 * run middlewares as the SDK does. What is here: the JSON codec's base64 for binary values, reading an answer's body,
 * its `$metadata`, the SDK's error names and `ServiceException`s, an unreadable answer's error, and the middleware
 * stack (the SDK's steps, names and relative placement, sorted once per change) that the client observers, the local
 * lean clients, the contract recorder, the bench's counters and the fault-injection tests use; and a client's settings
 * (region, endpoint, credentials, the SDK's retry strategy, the SigV4 signer), its retry and signing middlewares, and
 * running a call through the stack.
 */
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { doesIdentityRequireRefresh, isIdentityExpired, memoizeIdentityProvider } from '@smithy/core';
import { ServiceException } from '@smithy/core/client';
import { resolveRetryConfig, retryMiddleware } from '@smithy/core/retry';
import { Hash } from '@smithy/core/serde';
import type { HttpRequest, HttpResponse } from '@smithy/core/transport';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity } from '@smithy/types';

export type Json = Record<string, unknown>;

// ---------------------------------------------------------------------------------------------------------------
// JSON with binary values (the SDK's JSON codec: blobs as base64).

/** Decodes in place the base64 binary values of a parsed answer: members named `single` (a string) and `list` (strings). */
const decodeBinary = (value: unknown, single: string, list: string): void => {
  if (Array.isArray(value)) {
    for (const entry of value) decodeBinary(entry, single, list);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const object = value as Json;
  for (const key in object) {
    const member = object[key];
    if (key === single && typeof member === 'string') object[key] = fromBase64(member);
    else if (key === list && Array.isArray(member))
      object[key] = member.map((entry) => (typeof entry === 'string' ? fromBase64(entry) : entry));
    else decodeBinary(member, single, list);
  }
};

/**
 * A JSON answer's text parsed (`{}` when empty), its binary values (`single` and `list` members, base64 in JSON)
 * decoded; the walk only when the text has any.
 */
export const parseJsonAnswer = (text: string, single: string, list: string): Json => {
  if (text.length === 0) return {};
  const parsed = JSON.parse(text) as Json;
  if (text.includes(`"${single}":"`) || text.includes(`"${list}":["`)) decodeBinary(parsed, single, list);
  return parsed;
};

const base64 = (bytes: Uint8Array): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');

/**
 * `value` with every Uint8Array (a binary value) as its base64 text, copied only along the paths that hold one (the
 * input given and its other members are not touched).
 */
const withBinaryAsBase64 = (value: unknown): unknown => {
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Uint8Array) return base64(value);
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const written = withBinaryAsBase64(item);
      if (written !== item) {
        out ??= value.slice();
        out[i] = written;
      }
    }
    return out ?? value;
  }
  const object = value as Json;
  let out: Json | undefined;
  for (const key in object) {
    const member = object[key];
    const written = withBinaryAsBase64(member);
    if (written !== member) {
      out ??= { ...object };
      out[key] = written;
    }
  }
  return out ?? value;
};

/**
 * A request's JSON body, binary values as base64 (the SDK's JSON codec). One walk and one `JSON.stringify`: writing
 * the body and, when it held a binary value (a Uint8Array stringifies as `{"0":…}`), writing it again with a replacer
 * took 120 µs for a ten-item batch write holding four history packs, against 17 µs so (the worker's profile).
 */
export const jsonBody = (input: object): string => JSON.stringify(withBinaryAsBase64(input));

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

// ---------------------------------------------------------------------------------------------------------------
// A client's settings, its retry and signing middlewares, and a call through its stack.

/** What a client's calls read (`requestHandler` may be replaced: the local runtime's in-process transport). */
export interface JsonClientConfig {
  readonly region: string;
  readonly endpoint: URL;
  readonly signer: SignatureV4;
  requestHandler: {
    handle(request: HttpRequest, options?: { abortSignal?: AbortSignal }): Promise<{ response: HttpResponse }>;
  };
  readonly retryStrategy: () => Promise<unknown>;
  readonly maxAttempts: () => Promise<number>;
}

/** The service a client speaks to, and the SDK's defaults for its client. */
export interface JsonService {
  /** For errors, e.g. `DynamoDB`. */
  readonly label: string;
  /** SigV4's service name, e.g. `dynamodb`. */
  readonly signingName: string;
  /** As in `AWS_ENDPOINT_URL_<ID>`, e.g. `DYNAMODB`. */
  readonly endpointId: string;
  /** The SDK's attempts for the service's client (`AWS_MAX_ATTEMPTS` overrides). */
  readonly maxAttempts: number;
  /** The service defaults the SDK's client passes to `resolveRetryConfig`, if any (DynamoDB's 25 ms base delay). */
  readonly retryDefaults?: { readonly defaultBaseDelay: number; readonly defaultMaxAttempts: number };
}

/**
 * A client's settings as the SDK's client resolves them: the region (`AWS_REGION`), the endpoint (the option, else
 * `AWS_ENDPOINT_URL_<ID>` / `AWS_ENDPOINT_URL`, else `https://<signing name>.<region>.amazonaws.com`), the credentials
 * (the option, else the default chain, memoized), the standard retry strategy (`AWS_RETRY_MODE`, `AWS_MAX_ATTEMPTS`).
 */
export const resolveClientConfig = (
  service: JsonService,
  options: { readonly region?: string; readonly endpoint?: string; readonly credentials?: AwsCredentialIdentity } = {},
): JsonClientConfig => {
  const region = options.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
  if (!region) throw new Error(`${service.label}: no region (AWS_REGION)`);
  const endpoint = new URL(
    options.endpoint ??
      process.env[`AWS_ENDPOINT_URL_${service.endpointId}`] ??
      process.env.AWS_ENDPOINT_URL ??
      `https://${service.signingName}.${region}.amazonaws.com`,
  );
  const given = options.credentials;
  const credentials = given
    ? async () => given
    : (memoizeIdentityProvider(defaultProvider(), isIdentityExpired, doesIdentityRequireRefresh) as
        | (() => Promise<AwsCredentialIdentity>)
        | undefined);
  if (!credentials) throw new Error(`${service.label}: no credential provider`);
  const maxAttempts = Number(process.env.AWS_MAX_ATTEMPTS);
  return resolveRetryConfig(
    {
      region,
      endpoint,
      signer: new SignatureV4({ credentials, region, service: service.signingName, sha256: Hash.bind(null, 'sha256') }),
      requestHandler: new NodeHttpHandler(),
      retryMode: process.env.AWS_RETRY_MODE ?? 'standard',
      maxAttempts: Number.isInteger(maxAttempts) && maxAttempts > 0 ? maxAttempts : service.maxAttempts,
    },
    ...(service.retryDefaults ? [service.retryDefaults] : []),
  ) as unknown as JsonClientConfig;
};

/** The SDK's retry middleware and, inside its loop as the SDK's signing middleware, SigV4 (each attempt signed afresh). */
export const addRetryAndSigning = (stack: MiddlewareStack, config: JsonClientConfig): void => {
  stack.add(retryMiddleware(config as never) as unknown as Middleware, {
    step: 'finalizeRequest',
    priority: 'high',
    name: 'retryMiddleware',
  });
  const signer = config.signer;
  stack.addRelativeTo(
    (next) => async (args) => next({ ...args, request: await signer.sign(args.request as HttpRequest) }),
    { name: 'httpSigningMiddleware', relation: 'after', toMiddleware: 'retryMiddleware' },
  );
};

/** One call: `input` through the stack's middlewares, outermost first, to `transmit`; the output. */
export const sendThrough = (
  stack: MiddlewareStack,
  context: MiddlewareContext,
  input: Json,
  transmit: Handler,
): Promise<Json> => {
  const middlewares = stack.resolved();
  let handler = transmit;
  for (let index = middlewares.length - 1; index >= 0; index--)
    handler = (middlewares[index] as Middleware)(handler, context);
  return handler({ input }).then((result) => result.output);
};
