/**
 * The service's S3 client (one per process), observed like every AWS client: the few object operations the service
 * makes (put, get with a range, head) and presigned URLs, on the small client of `../signed-client.ts` (the SDK's own
 * parts) instead of `@aws-sdk/client-s3`, which put ~140 kB into every bundle that touches S3 (the schema of every S3
 * shape and error in one 137 kB module, kept whole; endpoint rules; the S3 Express, region-redirect and
 * flexible-checksum middlewares with JS CRC32/CRC64-NVME/SHA-1), and import-worker and batch-upload-* over 1.5 × the
 * reference's init CPU.
 *
 * S3 specifics kept: the payload hash signed and sent (`x-amz-content-sha256`, which S3 checks against the body it
 * receives), error names from S3's XML `Code` (or, for a bodiless answer such as HEAD's, from the status as the SDK
 * names it: `NotFound`), path-style addressing when configured or when the bucket is not a DNS label, and presigned
 * URLs with the SDK presigner's signature for the same request (test/unit/adapters/s3-client.test.ts). Not kept: the
 * SDK's CRC32 request checksum and response checksum validation (the signed payload hash covers the PUTs; GETs are
 * read over TLS), and S3 Express / access points / accelerate, which the service does not use. Presigned upload URLs
 * no longer carry the SDK's `x-amz-checksum-crc32` of an empty body, which S3 refuses for a non-empty file.
 */
import { observed } from '#shared/adapters/client-observers.ts';
import {
  escapeUri,
  type HttpRequest,
  type HttpResponse,
  type Operation,
  OperationCommand,
  readText,
  requestAt,
  SignedClient,
  type SignedClientConfig,
  serviceError,
} from '#shared/adapters/signed-client.ts';
import { config } from '#shared/config.ts';
import { processWide } from '#shared/lazy.ts';

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

/** The names the SDK gives an S3 error answer without a body (HEAD). */
const STATUS_NAMES: Record<number, string> = {
  301: 'PermanentRedirect',
  304: 'NotModified',
  400: 'BadRequest',
  403: 'Forbidden',
  404: 'NotFound',
  412: 'PreconditionFailed',
  416: 'InvalidRange',
};

const xmlField = (xml: string, field: string): string | undefined =>
  new RegExp(`<${field}>([^<]*)</${field}>`).exec(xml)?.[1];

const s3Error = async (response: HttpResponse) => {
  const xml = await readText(response).catch(() => '');
  return serviceError(response, {
    name: xmlField(xml, 'Code') ?? STATUS_NAMES[response.statusCode],
    message: xmlField(xml, 'Message'),
  });
};

interface S3Config extends SignedClientConfig {
  readonly forcePathStyle: boolean;
}

/** The request for an object: path-style (`host/bucket/key`) or virtual-hosted (`bucket.host/key`). */
const objectRequest = (settings: SignedClientConfig, address: ObjectAddress, method: string): HttpRequest => {
  const key = address.Key.split('/').map(escapeUri).join('/');
  const pathStyle = (settings as S3Config).forcePathStyle || !VIRTUAL_HOSTABLE.test(address.Bucket);
  return pathStyle
    ? requestAt(settings.endpoint, { method, path: `/${address.Bucket}/${key}` })
    : requestAt(settings.endpoint, {
        hostname: `${address.Bucket}.${settings.endpoint.hostname}`,
        method,
        path: `/${key}`,
      });
};

const contentLength = (response: HttpResponse): number | undefined => {
  const value = response.headers['content-length'];
  return value === undefined ? undefined : Number(value);
};

const PUT_OBJECT: Operation<PutObjectInput, Record<string, never>> = {
  name: 'PutObject',
  request: (settings, input) => {
    const request = objectRequest(settings, input, 'PUT');
    request.headers['content-type'] = input.ContentType ?? 'application/octet-stream';
    request.headers['content-length'] = String(
      typeof input.Body === 'string' ? Buffer.byteLength(input.Body) : input.Body.byteLength,
    );
    request.body = input.Body;
    return request;
  },
  output: async (response) => {
    await readText(response);
    return {};
  },
  error: s3Error,
};

const GET_OBJECT: Operation<GetObjectInput, GetObjectOutput> = {
  name: 'GetObject',
  request: (settings, input) => {
    const request = objectRequest(settings, input, 'GET');
    if (input.Range !== undefined) request.headers.range = input.Range;
    return request;
  },
  output: async (response) => ({
    Body: response.body as AsyncIterable<Uint8Array>,
    ContentLength: contentLength(response),
  }),
  error: s3Error,
};

const HEAD_OBJECT: Operation<ObjectAddress, HeadObjectOutput> = {
  name: 'HeadObject',
  request: (settings, input) => objectRequest(settings, input, 'HEAD'),
  output: async (response) => {
    await readText(response);
    return { ContentLength: contentLength(response) };
  },
  error: s3Error,
};

export const putObject = (input: PutObjectInput) => new OperationCommand('S3Client', PUT_OBJECT, input);
export const getObject = (input: GetObjectInput) => new OperationCommand('S3Client', GET_OBJECT, input);
export const headObject = (input: ObjectAddress) => new OperationCommand('S3Client', HEAD_OBJECT, input);

/** The S3 client: `send` an operation above, or `presign` a URL for one. */
export class S3 extends SignedClient {
  constructor(options: { readonly forcePathStyle: boolean }) {
    super({
      endpointId: 'S3',
      signingName: 's3',
      apiVersion: '2006-03-01',
      defaultEndpoint: (region) => `https://s3.${region}.amazonaws.com`,
      uriEscapePath: false,
      applyChecksum: true,
    });
    Object.assign(this.config, { forcePathStyle: options.forcePathStyle });
  }

  /**
   * A presigned URL for one GET or PUT of an object, as `@aws-sdk/s3-request-presigner` makes it: unsigned payload,
   * every `x-amz-*` header moved to the query, `content-type` left unsigned, plus the `headers` given signed (S3 then
   * refuses a request whose values differ, e.g. `content-length`).
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
