/**
 * A small AWS client made of the parts the SDK's own clients are made of: `@smithy/core`'s client, command and
 * middleware stack with the SDK's standard retries, `@smithy/signature-v4`, `@smithy/node-http-handler` and the default
 * credential chain. The S3 client (`s3/client.ts`), the SES client (`ses/client.ts`) and the Scheduler client
 * (`scheduler/client.ts`) are built on it; the last two with `jsonOperation` (REST with JSON bodies).
 *
 * Why (cold starts): an SDK client brings its service's whole model into the bundle whatever commands a
 * function sends (the schema of every shape and error, endpoint rules, service-specific middlewares): ~140 kB for S3,
 * ~60 kB for SESv2. Every part used here is already in the bundle of any function that talks to DynamoDB, so a service
 * reached through this adds only the few operations it defines. What it keeps of the SDK's behaviour: SigV4 signing
 * inside the retry loop (each attempt signed afresh), the SDK's retry strategy and its classification (throttling,
 * 5xx, network errors), errors as `ServiceException`s with the service's error name, `$fault` and `$metadata`, the
 * endpoint from `AWS_ENDPOINT_URL_<SERVICE>` / `AWS_ENDPOINT_URL` (the local runtime's emulators), and the SDK's client
 * and command names in the middleware context (the contract recorder and the fault-injection tests see
 * `S3Client:GetObject` as before). A middleware stack with `httpSigningMiddleware` after `retryMiddleware`, as the
 * SDK's, so the local runtime's lean clients (local/lean-clients.ts) apply unchanged.
 */
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { doesIdentityRequireRefresh, isIdentityExpired, memoizeIdentityProvider } from '@smithy/core';
import { Client, Command, ServiceException } from '@smithy/core/client';
import { getRetryPlugin, resolveRetryConfig } from '@smithy/core/retry';
import { Hash } from '@smithy/core/serde';
import { HttpRequest, type HttpResponse } from '@smithy/core/transport';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity } from '@smithy/types';
import { type ClientService, observed } from '#shared/adapters/client-observers.ts';
import { processWide } from '#shared/lazy.ts';

export { HttpRequest, type HttpResponse };

/** Percent-encodes as SigV4 canonicalises (RFC 3986 unreserved characters only). */
export const escapeUri = (text: string): string =>
  encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** What the SDK reports of every answer (the retry middleware adds the attempts). */
const metadataOf = (response: HttpResponse) => {
  const requestId = response.headers['x-amz-request-id'] ?? response.headers['x-amzn-requestid'];
  const extendedRequestId = response.headers['x-amz-id-2'];
  return {
    httpStatusCode: response.statusCode,
    ...(requestId === undefined ? {} : { requestId }),
    ...(extendedRequestId === undefined ? {} : { extendedRequestId }),
  };
};

/** Reads a response body to its end (frees the connection; small bodies only: errors, short answers). */
export const readText = async (response: HttpResponse): Promise<string> => {
  const body = response.body as AsyncIterable<Uint8Array> | undefined;
  if (!body || typeof body[Symbol.asyncIterator] !== 'function') return '';
  const chunks: Uint8Array[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
};

/** An error answer as the SDK raises it: named as the service names it, with `$fault` and `$metadata` for the retries. */
export const serviceError = (
  response: HttpResponse,
  parsed: { readonly name: string | undefined; readonly message: string | undefined },
): ServiceException => {
  const status = response.statusCode;
  const name = parsed.name ?? (status >= 500 ? 'InternalError' : 'UnknownError');
  const error = new ServiceException({
    name,
    message: parsed.message ?? name,
    $fault: status >= 500 ? 'server' : 'client',
    $metadata: metadataOf(response),
  });
  return Object.assign(error, { $response: response });
};

/** The settings of one client. */
export interface SignedClientConfig {
  readonly apiVersion: string;
  readonly region: string;
  readonly endpoint: URL;
  readonly signer: SignatureV4;
  readonly requestHandler: NodeHttpHandler;
  readonly retryStrategy: () => Promise<unknown>;
  readonly maxAttempts: () => Promise<number>;
}

/** One operation of a service: its request from the input, its output (or error) from the answer. */
export interface Operation<I, O> {
  readonly name: string;
  readonly request: (settings: SignedClientConfig, input: I) => HttpRequest;
  readonly output: (response: HttpResponse) => Promise<O>;
  /** The error of a non-2xx answer. */
  readonly error: (response: HttpResponse) => Promise<ServiceException>;
}

/** The host header and URL parts of `endpoint` (a base path kept), for an `HttpRequest`. */
export const requestAt = (
  endpoint: URL,
  request: { readonly hostname?: string; readonly method: string; readonly path: string },
): HttpRequest => {
  const hostname = request.hostname ?? endpoint.hostname;
  const port = endpoint.port === '' ? undefined : Number(endpoint.port);
  return new HttpRequest({
    protocol: endpoint.protocol,
    hostname,
    ...(port === undefined ? {} : { port }),
    method: request.method,
    path: `${endpoint.pathname.replace(/\/$/, '')}${request.path}`,
    query: {},
    headers: { host: port === undefined ? hostname : `${hostname}:${port}` },
  });
};

// ---------------------------------------------------------------------------------------------------------------
// REST with JSON bodies (AWS's restJson1: SESv2, Scheduler).

/** `x-amzn-errortype` or a body's `code` / `__type` as the SDK reads it: `ns#Name:extra` → `Name`. */
const sanitizeErrorCode = (raw: unknown): string | undefined => {
  if (raw === undefined || raw === null) return undefined;
  let code = String(raw);
  if (code.includes(',')) code = code.split(',')[0] ?? code;
  if (code.includes(':')) code = code.split(':')[0] ?? code;
  if (code.includes('#')) code = code.split('#')[1] ?? code;
  return code || undefined;
};

const fieldOf = (data: Record<string, unknown>, name: string): unknown =>
  Object.entries(data).find(([key]) => key.toLowerCase() === name)?.[1];

const jsonError = async (response: HttpResponse) => {
  const text = await readText(response).catch(() => '');
  let data: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object') data = parsed as Record<string, unknown>;
  } catch {
    // Not JSON (a proxy's or an emulator's plain answer): the status names it.
  }
  const header = Object.entries(response.headers).find(([key]) => key.toLowerCase() === 'x-amzn-errortype')?.[1];
  const message = fieldOf(data, 'message');
  return serviceError(response, {
    name: sanitizeErrorCode(header) ?? sanitizeErrorCode(fieldOf(data, 'code')) ?? sanitizeErrorCode(data.__type),
    message: typeof message === 'string' ? message : undefined,
  });
};

/** An operation whose request is `method path` with `body` as JSON (if any), and whose output is the JSON answer. */
export const jsonOperation = <I, O extends object>(
  name: string,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: (input: I) => string,
  body?: (input: I) => unknown,
): Operation<I, O> => ({
  name,
  request: (settings, input) => {
    const request = requestAt(settings.endpoint, { method, path: path(input) });
    if (body) {
      const json = JSON.stringify(body(input));
      request.headers['content-type'] = 'application/json';
      request.headers['content-length'] = String(Buffer.byteLength(json));
      request.body = json;
    }
    return request;
  },
  output: async (response) => {
    const text = await readText(response);
    return (text ? JSON.parse(text) : {}) as O;
  },
  error: jsonError,
});

/** One call: the SDK's `Command`, so the middleware context names client and command as the SDK's does. */
export class OperationCommand<I, O extends object> extends Command<I, O, SignedClientConfig> {
  readonly input: I;
  readonly #operation: Operation<I, O>;
  readonly #clientName: string;

  constructor(clientName: string, operation: Operation<I, O>, input: I) {
    super();
    this.input = input;
    this.#operation = operation;
    this.#clientName = clientName;
  }

  // biome-ignore lint/suspicious/noExplicitAny: the stack's handler types are the SDK's, generic over every client.
  resolveMiddleware(clientStack: any, settings: SignedClientConfig, options: any): any {
    const operation = this.#operation;
    return this.resolveMiddlewareWithContext(clientStack, settings, options, {
      CommandCtor: OperationCommand,
      middlewareFn: () => [
        {
          applyToStack: (stack: { add: (middleware: unknown, options: { step: string; name: string }) => void }) => {
            stack.add(
              (next: (args: unknown) => Promise<unknown>) => async (args: { input: I }) =>
                next({ ...args, request: operation.request(settings, args.input) }),
              { step: 'serialize', name: 'storeflowSerializer' },
            );
            stack.add(
              (next: (args: unknown) => Promise<{ response: HttpResponse }>) => async (args: unknown) => {
                const { response } = await next(args);
                if (response.statusCode < 200 || response.statusCode >= 300) throw await operation.error(response);
                return { response, output: { ...(await operation.output(response)), $metadata: metadataOf(response) } };
              },
              { step: 'deserialize', name: 'storeflowDeserializer' },
            );
          },
        },
      ],
      clientName: this.#clientName,
      commandName: `${operation.name}Command`,
      inputFilterSensitiveLog: (input: unknown) => input,
      outputFilterSensitiveLog: (output: unknown) => output,
      smithyContext: { operation: operation.name },
      additionalContext: {},
      // biome-ignore lint/suspicious/noExplicitAny: see above.
    } as any);
  }
}

/** A client of one service: `send` an `OperationCommand`; `config.signer` presigns. */
export class SignedClient {
  readonly config: SignedClientConfig;
  // biome-ignore lint/suspicious/noExplicitAny: the SDK's client is generic over every service's shapes.
  readonly #client: Client<any, any, any, any>;

  constructor(service: {
    /** As in `AWS_ENDPOINT_URL_<ID>`, e.g. `S3`, `SESV2`. */
    readonly endpointId: string;
    readonly signingName: string;
    readonly apiVersion: string;
    readonly defaultEndpoint: (region: string) => string;
    /** False for S3, which signs the path as sent (each key segment escaped once). */
    readonly uriEscapePath: boolean;
    /** Sends the payload hash as `x-amz-content-sha256` (S3 wants it). */
    readonly applyChecksum: boolean;
  }) {
    const region = process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
    if (!region) throw new Error(`${service.endpointId}: no region (AWS_REGION)`);
    const configured = process.env[`AWS_ENDPOINT_URL_${service.endpointId}`] ?? process.env.AWS_ENDPOINT_URL;
    const credentials = memoizeIdentityProvider(defaultProvider(), isIdentityExpired, doesIdentityRequireRefresh) as
      | (() => Promise<AwsCredentialIdentity>)
      | undefined;
    if (!credentials) throw new Error(`${service.endpointId}: no credential provider`);
    const settings = resolveRetryConfig({
      apiVersion: service.apiVersion,
      region,
      endpoint: new URL(configured ?? service.defaultEndpoint(region)),
      signer: new SignatureV4({
        credentials,
        region,
        service: service.signingName,
        sha256: Hash.bind(null, 'sha256'),
        uriEscapePath: service.uriEscapePath,
        applyChecksum: service.applyChecksum,
      }),
      requestHandler: new NodeHttpHandler(),
      retryMode: 'standard',
    }) as unknown as SignedClientConfig;
    this.config = settings;
    this.#client = new Client(settings);
    this.middlewareStack.use(getRetryPlugin(settings as never));
    // Inside the retry loop, as the SDK's signing middleware: each attempt is signed afresh.
    this.middlewareStack.addRelativeTo(
      ((next: (args: { request: unknown }) => Promise<unknown>) => async (args: { request: unknown }) =>
        next({ ...args, request: await settings.signer.sign(args.request as HttpRequest) })) as never,
      { name: 'httpSigningMiddleware', relation: 'after', toMiddleware: 'retryMiddleware', override: true },
    );
  }

  /** The client's middleware stack: what the client observers see (`client-observers.ts`). */
  get middlewareStack() {
    return this.#client.middlewareStack;
  }

  send<I, O extends object>(command: OperationCommand<I, O>): Promise<O> {
    return this.#client.send(command as never) as Promise<O>;
  }
}

/**
 * The process's client of a REST-JSON service (SESv2, Scheduler), observed as `service`, made on first use: its path
 * signed escaped and no payload checksum, as the SDK's clients of those services do.
 */
export const restJsonClient = (
  service: ClientService,
  settings: Pick<
    ConstructorParameters<typeof SignedClient>[0],
    'endpointId' | 'signingName' | 'apiVersion' | 'defaultEndpoint'
  >,
): (() => SignedClient) =>
  processWide(() => observed(service, new SignedClient({ ...settings, uriEscapePath: true, applyChecksum: false })));
