/**
 * The service's S3 client (one per process), observed like every AWS client: the few object operations the service
 * makes (put, get with a range, head) and presigned URLs, built from the parts the SDK's own clients are made of
 * (`@smithy/core`'s client, middleware stack and standard retries, `@smithy/signature-v4`, `@smithy/node-http-handler`,
 * the default credential chain) instead of `@aws-sdk/client-s3`.
 *
 * Why (issue 16, cold starts): `@aws-sdk/client-s3` puts ~150 kB into a bundle whatever commands it sends: the schema
 * of every S3 shape and error (one 137 kB module, kept whole), the endpoint rules, the S3 Express, region-redirect and
 * flexible-checksum middlewares with their JS CRC32/CRC64-NVME/SHA-1 code. Every part used here is already in the
 * bundle of any function that talks to DynamoDB, so S3 now adds ~5 kB (bench `bundles`). What is kept of the SDK's
 * behaviour: SigV4 signing with the signed payload hash (`x-amz-content-sha256`, which S3 checks against the body it
 * receives), standard retries (the SDK's default attempts and back-off, on throttling, 5xx and network errors), error names
 * from S3's XML error `Code` (or from the status for bodiless HEAD answers: `NotFound`), the endpoint from
 * `AWS_ENDPOINT_URL_S3` / `AWS_ENDPOINT_URL` (the local runtime's emulator), path-style addressing when configured or
 * when the bucket is not a DNS label, the SDK client and command names in the middleware context (the contract
 * recorder and the fault-injection tests see `S3Client:GetObject` as before). What is not: the SDK's CRC32 request
 * checksum and its response checksum validation (the SigV4 payload hash covers the PUTs; GETs are read over TLS), and
 * S3 Express / access points / accelerate, which the service does not use. Presigned upload URLs no longer carry the
 * SDK's `x-amz-checksum-crc32` of an empty body, which S3 refuses for a non-empty file.
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
import { observed } from '#shared/adapters/client-observers.ts';
import { config } from '#shared/config.ts';
import { processWide } from '#shared/lazy.ts';

/** Percent-encodes as SigV4 canonicalises (RFC 3986 unreserved characters only). */
const escapeUri = (text: string): string =>
  encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** A bucket name S3 can serve as a host label over TLS (no dots, lower case): else path-style. */
const VIRTUAL_HOSTABLE = /^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/;

/** An object of a bucket: where the request goes. */
export interface ObjectAddress {
  readonly Bucket: string;
  readonly Key: string;
}

/** What each operation sends and reads back. */
export interface PutObjectInput extends ObjectAddress {
  readonly Body: string | Uint8Array;
  readonly ContentType?: string;
}
export interface GetObjectInput extends ObjectAddress {
  /** `bytes=<from>-` */
  readonly Range?: string;
}
export interface GetObjectOutput {
  /** The body as a stream of bytes (Node's `IncomingMessage`). */
  readonly Body: AsyncIterable<Uint8Array> | undefined;
  readonly ContentLength: number | undefined;
}
export interface HeadObjectOutput {
  readonly ContentLength: number | undefined;
}

interface Operation<I, O> {
  readonly name: 'PutObject' | 'GetObject' | 'HeadObject';
  readonly method: 'PUT' | 'GET' | 'HEAD';
  readonly headers: (input: I) => Record<string, string>;
  readonly body?: (input: I) => string | Uint8Array;
  readonly output: (response: HttpResponse) => Promise<O>;
}

const contentLength = (response: HttpResponse): number | undefined => {
  const value = response.headers['content-length'];
  return value === undefined ? undefined : Number(value);
};

/** Reads a response body to its end (frees the connection; small bodies only: errors, empty PUT answers). */
const drain = async (response: HttpResponse): Promise<string> => {
  const body = response.body as AsyncIterable<Uint8Array> | undefined;
  if (!body || typeof body[Symbol.asyncIterator] !== 'function') return '';
  const chunks: Uint8Array[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
};

const PUT_OBJECT: Operation<PutObjectInput, Record<string, never>> = {
  name: 'PutObject',
  method: 'PUT',
  headers: (input) => ({
    'content-type': input.ContentType ?? 'application/octet-stream',
    'content-length': String(typeof input.Body === 'string' ? Buffer.byteLength(input.Body) : input.Body.byteLength),
  }),
  body: (input) => input.Body,
  output: async (response) => {
    await drain(response);
    return {};
  },
};

const GET_OBJECT: Operation<GetObjectInput, GetObjectOutput> = {
  name: 'GetObject',
  method: 'GET',
  headers: (input) => (input.Range === undefined ? {} : { range: input.Range }),
  output: async (response) => ({
    Body: response.body as AsyncIterable<Uint8Array>,
    ContentLength: contentLength(response),
  }),
};

const HEAD_OBJECT: Operation<ObjectAddress, HeadObjectOutput> = {
  name: 'HeadObject',
  method: 'HEAD',
  headers: () => ({}),
  output: async (response) => {
    await drain(response);
    return { ContentLength: contentLength(response) };
  },
};

/** The names S3 gives a bodiless error (HEAD), as the SDK names them. */
const STATUS_NAMES: Record<number, string> = {
  301: 'PermanentRedirect',
  304: 'NotModified',
  400: 'BadRequest',
  403: 'Forbidden',
  404: 'NotFound',
  412: 'PreconditionFailed',
  416: 'InvalidRange',
};

const optional = <K extends string>(key: K, value: string | undefined) =>
  (value === undefined ? {} : { [key]: value }) as { [P in K]?: string };

const xmlField = (xml: string, field: string): string | undefined =>
  new RegExp(`<${field}>([^<]*)</${field}>`).exec(xml)?.[1];

/** What the SDK reports of every answer (the retry middleware adds the attempts). */
const metadataOf = (response: HttpResponse) => ({
  httpStatusCode: response.statusCode,
  ...optional('requestId', response.headers['x-amz-request-id']),
  ...optional('extendedRequestId', response.headers['x-amz-id-2']),
});

/** An S3 error answer as the SDK raises it: named after S3's `Code`, with `$fault` and `$metadata` for the retries. */
const serviceError = async (response: HttpResponse): Promise<ServiceException> => {
  const xml = await drain(response).catch(() => '');
  const status = response.statusCode;
  const name = xmlField(xml, 'Code') ?? STATUS_NAMES[status] ?? (status >= 500 ? 'InternalError' : 'UnknownError');
  const error = new ServiceException({
    name,
    message: xmlField(xml, 'Message') ?? name,
    $fault: status >= 500 ? 'server' : 'client',
    $metadata: metadataOf(response),
  });
  return Object.assign(error, { $response: response });
};

interface S3Config {
  readonly apiVersion: string;
  readonly region: string;
  readonly endpoint: URL;
  readonly forcePathStyle: boolean;
  readonly signer: SignatureV4;
  readonly requestHandler: NodeHttpHandler;
  readonly retryStrategy: () => Promise<unknown>;
  readonly maxAttempts: () => Promise<number>;
}

/** The URL of an object: path-style (`host/bucket/key`) or virtual-hosted (`bucket.host/key`). */
const objectRequest = (settings: S3Config, address: ObjectAddress, method: string): HttpRequest => {
  const { endpoint } = settings;
  const key = address.Key.split('/').map(escapeUri).join('/');
  const pathStyle = settings.forcePathStyle || !VIRTUAL_HOSTABLE.test(address.Bucket);
  const hostname = pathStyle ? endpoint.hostname : `${address.Bucket}.${endpoint.hostname}`;
  const port = endpoint.port === '' ? undefined : Number(endpoint.port);
  const base = endpoint.pathname.replace(/\/$/, '');
  return new HttpRequest({
    protocol: endpoint.protocol,
    hostname,
    ...(port === undefined ? {} : { port }),
    method,
    path: pathStyle ? `${base}/${address.Bucket}/${key}` : `${base}/${key}`,
    query: {},
    headers: { host: port === undefined ? hostname : `${hostname}:${port}` },
  });
};

/** One call: the SDK's `Command`, so the middleware context names client and command as the SDK's does. */
class S3Command<I extends ObjectAddress, O extends object> extends Command<I, O, S3Config> {
  readonly input: I;
  private readonly operation: Operation<I, O>;

  constructor(input: I, operation: Operation<I, O>) {
    super();
    this.input = input;
    this.operation = operation;
  }

  // biome-ignore lint/suspicious/noExplicitAny: the stack's handler types are the SDK's, generic over every client.
  resolveMiddleware(clientStack: any, settings: S3Config, options: any): any {
    const { operation } = this;
    return this.resolveMiddlewareWithContext(clientStack, settings, options, {
      CommandCtor: S3Command,
      middlewareFn: () => [
        {
          applyToStack: (stack: {
            add: (middleware: unknown, options: { step: string; name: string; priority?: string }) => void;
          }) => {
            stack.add(
              (next: (args: unknown) => Promise<unknown>) => async (args: { input: I }) => {
                const request = objectRequest(settings, args.input, operation.method);
                Object.assign(request.headers, operation.headers(args.input));
                if (operation.body) request.body = operation.body(args.input);
                return next({ ...args, request });
              },
              { step: 'serialize', name: 'storeflowS3Serializer' },
            );
            stack.add(
              (next: (args: unknown) => Promise<{ response: HttpResponse }>) => async (args: unknown) => {
                const { response } = await next(args);
                if (response.statusCode < 200 || response.statusCode >= 300) throw await serviceError(response);
                return { response, output: { ...(await operation.output(response)), $metadata: metadataOf(response) } };
              },
              { step: 'deserialize', name: 'storeflowS3Deserializer' },
            );
          },
        },
      ],
      clientName: 'S3Client',
      commandName: `${operation.name}Command`,
      inputFilterSensitiveLog: (input: unknown) => input,
      outputFilterSensitiveLog: (output: unknown) => output,
      smithyContext: { service: 'AmazonS3', operation: operation.name },
      additionalContext: {},
      // biome-ignore lint/suspicious/noExplicitAny: see above.
    } as any);
  }
}

export const putObject = (input: PutObjectInput) => new S3Command(input, PUT_OBJECT);
export const getObject = (input: GetObjectInput) => new S3Command(input, GET_OBJECT);
export const headObject = (input: ObjectAddress) => new S3Command(input, HEAD_OBJECT);

/** The S3 client: `send` an operation above, or `presign` a URL for one. */
export class S3 {
  readonly config: S3Config;
  // biome-ignore lint/suspicious/noExplicitAny: the SDK's client is generic over every service's shapes.
  private readonly client: Client<any, any, any, any>;

  constructor(options: { readonly forcePathStyle: boolean }) {
    const region = process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
    if (!region) throw new Error('S3: no region (AWS_REGION)');
    const configured = process.env.AWS_ENDPOINT_URL_S3 ?? process.env.AWS_ENDPOINT_URL;
    const credentials = memoizeIdentityProvider(defaultProvider(), isIdentityExpired, doesIdentityRequireRefresh) as
      | (() => Promise<AwsCredentialIdentity>)
      | undefined;
    if (!credentials) throw new Error('S3: no credential provider');
    const settings = resolveRetryConfig({
      apiVersion: '2006-03-01',
      region,
      endpoint: new URL(configured ?? `https://s3.${region}.amazonaws.com`),
      forcePathStyle: options.forcePathStyle,
      signer: new SignatureV4({
        credentials,
        region,
        service: 's3',
        sha256: Hash.bind(null, 'sha256'),
        // S3 signs the path as sent (each key segment escaped once), and wants the payload hash as a header.
        uriEscapePath: false,
        applyChecksum: true,
      }),
      requestHandler: new NodeHttpHandler(),
      retryMode: 'standard',
    }) as unknown as S3Config;
    this.config = settings;
    this.client = new Client(settings);
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
    return this.client.middlewareStack;
  }

  send<I extends ObjectAddress, O extends object>(command: S3Command<I, O>): Promise<O> {
    return this.client.send(command as never) as Promise<O>;
  }

  /**
   * A presigned URL for one GET or PUT of an object, as `@aws-sdk/s3-request-presigner` makes it: unsigned payload,
   * every `x-amz-*` header moved to the query, `content-type` left unsigned, plus `signed` headers the caller sets
   * (S3 then refuses a request whose values differ, e.g. `content-length`).
   */
  async presign(
    method: 'GET' | 'PUT',
    address: ObjectAddress,
    options: { readonly expiresIn: number; readonly headers?: Record<string, string> },
  ): Promise<string> {
    const request = objectRequest(this.config, address, method);
    Object.assign(request.headers, options.headers ?? {}, { 'X-Amz-Content-Sha256': 'UNSIGNED-PAYLOAD' });
    const signed = await this.config.signer.presign(request, {
      expiresIn: options.expiresIn,
      unsignableHeaders: new Set(['content-type']),
      signableHeaders: new Set(Object.keys(options.headers ?? {})),
    });
    const query = Object.entries(signed.query ?? {})
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, value]) => `${escapeUri(name)}=${escapeUri(String(value))}`)
      .join('&');
    const port = signed.port === undefined ? '' : `:${signed.port}`;
    return `${signed.protocol}//${signed.hostname}${port}${signed.path}?${query}`;
  }
}

export const s3 = /* @__PURE__ */ processWide(() =>
  observed('s3', new S3({ forcePathStyle: config().s3ForcePathStyle })),
);
