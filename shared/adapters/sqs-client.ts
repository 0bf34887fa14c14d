/**
 * The service's SQS client: the operations the service and the local runtime's pollers send (`SendMessage`,
 * `SendMessageBatch`, `ReceiveMessage`, `DeleteMessageBatch`, `ChangeMessageVisibility`, and `DeleteMessage`), with the
 * names and input shapes of `@aws-sdk/client-sqs`'s commands, so a user changes only its import line.
 *
 * Why: SQS is the service's most frequent call after DynamoDB (a message per accepted event, the
 * workers' follow-ups, and locally every receive and delete of the pollers), and the SDK's client spends most of its
 * CPU per call on work that does not depend on the call, as its DynamoDB client did (`dynamodb-client.ts`: per call
 * it resolves the command's middleware stack and the endpoint rules and walks the operation's schema). This client
 * keeps the SDK's wire format and behaviour on the DynamoDB client's machinery (`json-client.ts`):
 * - AWS JSON 1.0 (`POST /`, `X-Amz-Target: AmazonSQS.<Operation>`, `application/x-amz-json-1.0`, and the SDK's
 *   `x-amzn-query-mode: true`), the input as given (binary message attribute values as base64, both ways);
 * - errors as the SDK's query-compatible JSON protocol raises them: the name from the `x-amzn-query-error` code (the
 *   query name, `AWS.SimpleQueueService.NonExistentQueue`, mapped to the modeled one, `QueueDoesNotExist`), then
 *   `x-amzn-errortype`, then `__type`; `$fault` of the model (every modeled SQS error is the client's) or of the
 *   status; `Code`, `Type`, `Error` and `RequestId` as the SDK adds them; the answer's other members;
 * - the SDK's MD5 checks of the message bodies (`SendMessage`, `SendMessageBatch`, `ReceiveMessage`), as middlewares
 *   with its names and errors (`md5: false` turns them off, as the SDK's option); message attributes' MD5s are not
 *   checked by the SDK either;
 * - the SDK's retry middleware and standard strategy with its defaults (3 attempts, 100 ms base delay;
 *   `AWS_MAX_ATTEMPTS`, `AWS_RETRY_MODE`; a receive marked as a long poll, as the SDK does), SigV4 (`sqs`) inside the
 *   retry loop so each attempt is signed afresh;
 * - the endpoint from the `endpoint` option, else `AWS_ENDPOINT_URL_SQS` / `AWS_ENDPOINT_URL`, else
 *   `https://sqs.<region>.amazonaws.com`; without the option, a `QueueUrl` on another origin is sent to that origin,
 *   as the SDK's `queueUrlMiddleware` does (without its warning);
 * - the extension points of `dynamodb-client.ts` (its middleware stack, `SQSClient` and `SendMessageCommand`… in the
 *   context, `config.requestHandler` read per call, an `abortSignal` passed to it).
 * Not kept: the user agent and the Lambda recursion-detection header (as `dynamodb-client.ts`), the output's members
 * that SQS does not model (the SDK drops them; SQS sends none). `test/unit/adapters/sqs-client.test.ts` compares its
 * requests, answers and errors with the SDK's.
 */
import { createHash } from 'node:crypto';
import type {
  ChangeMessageVisibilityCommandInput,
  ChangeMessageVisibilityCommandOutput,
  DeleteMessageBatchCommandInput,
  DeleteMessageBatchCommandOutput,
  DeleteMessageCommandInput,
  DeleteMessageCommandOutput,
  Message,
  ReceiveMessageCommandInput,
  ReceiveMessageCommandOutput,
  SendMessageBatchCommandInput,
  SendMessageBatchCommandOutput,
  SendMessageBatchRequestEntry,
  SendMessageCommandInput,
  SendMessageCommandOutput,
} from '@aws-sdk/client-sqs';
import type { ServiceException } from '@smithy/core/client';
import { HttpRequest, type HttpResponse } from '@smithy/core/transport';
import type { AwsCredentialIdentity } from '@smithy/types';
import {
  type Args,
  addRetryAndSigning,
  errorCode,
  type Json,
  type JsonClientConfig,
  jsonBody,
  type Middleware,
  type MiddlewareContext,
  MiddlewareStack,
  metadataOf,
  parseJsonAnswer,
  type Result,
  readBody,
  resolveClientConfig,
  sendThrough,
  serviceError,
  unreadable,
} from './json-client.ts';

/** The message shapes the sender and the pollers name. */
export type { Message, SendMessageBatchRequestEntry };

// ---------------------------------------------------------------------------------------------------------------
// The operations.

/** One call: what `send` takes; `name` is SQS's operation (the SDK's command is `${name}Command`). */
export abstract class SqsCommand<I extends object, O extends object> {
  abstract readonly name: string;
  readonly input: I;
  /** Types the answer (never set). */
  declare readonly __output?: O;
  constructor(input: I) {
    this.input = input;
  }
}

export class SendMessageCommand extends SqsCommand<SendMessageCommandInput, SendMessageCommandOutput> {
  readonly name = 'SendMessage';
}
export class SendMessageBatchCommand extends SqsCommand<SendMessageBatchCommandInput, SendMessageBatchCommandOutput> {
  readonly name = 'SendMessageBatch';
}
export class ReceiveMessageCommand extends SqsCommand<ReceiveMessageCommandInput, ReceiveMessageCommandOutput> {
  readonly name = 'ReceiveMessage';
}
export class DeleteMessageCommand extends SqsCommand<DeleteMessageCommandInput, DeleteMessageCommandOutput> {
  readonly name = 'DeleteMessage';
}
export class DeleteMessageBatchCommand extends SqsCommand<
  DeleteMessageBatchCommandInput,
  DeleteMessageBatchCommandOutput
> {
  readonly name = 'DeleteMessageBatch';
}
export class ChangeMessageVisibilityCommand extends SqsCommand<
  ChangeMessageVisibilityCommandInput,
  ChangeMessageVisibilityCommandOutput
> {
  readonly name = 'ChangeMessageVisibility';
}

// ---------------------------------------------------------------------------------------------------------------
// JSON with binary message attributes (the SDK's JSON codec: blobs as base64).

/** A parsed answer, its message attributes' base64 binary values decoded (only when its text has any). */
const parseBody = (text: string): Json => parseJsonAnswer(text, 'BinaryValue', 'BinaryListValues');

// ---------------------------------------------------------------------------------------------------------------
// Errors: the SDK's query-compatible JSON protocol (SQS was a query service first).

/** SQS's modeled errors by their query code (`awsQueryError`); all are the client's fault. */
const QUERY_CODES: Readonly<Record<string, string>> = {
  'AWS.SimpleQueueService.BatchEntryIdsNotDistinct': 'BatchEntryIdsNotDistinct',
  'AWS.SimpleQueueService.BatchRequestTooLong': 'BatchRequestTooLong',
  'AWS.SimpleQueueService.EmptyBatchRequest': 'EmptyBatchRequest',
  InvalidAddress: 'InvalidAddress',
  InvalidAttributeName: 'InvalidAttributeName',
  InvalidAttributeValue: 'InvalidAttributeValue',
  'AWS.SimpleQueueService.InvalidBatchEntryId': 'InvalidBatchEntryId',
  InvalidIdFormat: 'InvalidIdFormat',
  InvalidMessageContents: 'InvalidMessageContents',
  InvalidSecurity: 'InvalidSecurity',
  'KMS.AccessDeniedException': 'KmsAccessDenied',
  'KMS.DisabledException': 'KmsDisabled',
  'KMS.InvalidKeyUsageException': 'KmsInvalidKeyUsage',
  'KMS.InvalidStateException': 'KmsInvalidState',
  'KMS.NotFoundException': 'KmsNotFound',
  'KMS.OptInRequired': 'KmsOptInRequired',
  'KMS.ThrottlingException': 'KmsThrottled',
  'AWS.SimpleQueueService.MessageNotInflight': 'MessageNotInflight',
  OverLimit: 'OverLimit',
  'AWS.SimpleQueueService.PurgeQueueInProgress': 'PurgeQueueInProgress',
  'AWS.SimpleQueueService.QueueDeletedRecently': 'QueueDeletedRecently',
  'AWS.SimpleQueueService.NonExistentQueue': 'QueueDoesNotExist',
  QueueAlreadyExists: 'QueueNameExists',
  ReceiptHandleIsInvalid: 'ReceiptHandleIsInvalid',
  RequestThrottled: 'RequestThrottled',
  ResourceNotFoundException: 'ResourceNotFoundException',
  'AWS.SimpleQueueService.TooManyEntriesInBatchRequest': 'TooManyEntriesInBatchRequest',
  'AWS.SimpleQueueService.UnsupportedOperation': 'UnsupportedOperation',
};
const MODEL = { modeled: new Set(Object.values(QUERY_CODES)), server: new Set<string>() };

/** A non-2xx answer as the SDK's `AwsJson1_0Protocol` with `awsQueryCompatible` raises it. */
const sqsError = (response: HttpResponse, data: Json): ServiceException => {
  const queryError = response.headers['x-amzn-query-error'];
  if (queryError !== undefined && queryError !== null) {
    const [Code, Type] = queryError.split(';');
    const details: Json = { Code, Type };
    for (const key of Object.keys(data)) details[key === 'message' ? 'Message' : key] = data[key];
    delete details.__type;
    Object.assign(data, { Code, Type, Error: details });
  }
  const codeKey = Object.keys(data).find((key) => key.toLowerCase() === 'code');
  const errorType = Object.keys(response.headers).find((key) => key.toLowerCase() === 'x-amzn-errortype');
  const identifier =
    (codeKey === undefined ? undefined : errorCode(data[codeKey])) ??
    (errorType === undefined ? undefined : errorCode(response.headers[errorType])) ??
    errorCode(data.__type) ??
    'Unknown';
  const name = MODEL.modeled.has(identifier) ? identifier : (QUERY_CODES[identifier] ?? identifier);
  const message = data.Message;
  const error = serviceError(response, data, MODEL, name) as ServiceException & Json;
  if (typeof message === 'string' && message !== '') error.message = message;
  const details = (error.Error ?? {}) as Json;
  error.Error = {
    ...details,
    Type: details.Type,
    Code: details.Code,
    Message: details.message ?? details.Message ?? message,
  };
  if (error.$metadata.requestId) error.RequestId = error.$metadata.requestId;
  return error;
};

// ---------------------------------------------------------------------------------------------------------------
// The SDK's MD5 checks of message bodies (`@aws-sdk/middleware-sdk-sqs`), with its names and errors.

const md5 = (text: string | undefined) =>
  createHash('md5')
    .update(text ?? '', 'utf8')
    .digest('hex');

const md5Checks: readonly { readonly name: string; readonly command: string; readonly check: Middleware }[] = [
  {
    name: 'sendMessageMiddleware',
    command: 'SendMessageCommand',
    check: (next) => async (args) => {
      const result = await next(args);
      if (result.output.MD5OfMessageBody !== md5(args.input.MessageBody as string | undefined))
        throw new Error('InvalidChecksumError');
      return result;
    },
  },
  {
    name: 'sendMessageBatchMiddleware',
    command: 'SendMessageBatchCommand',
    check: (next) => async (args) => {
      const result = await next(args);
      const sent = new Map<unknown, Json>();
      for (const entry of (result.output.Successful ?? []) as Json[])
        if (entry.Id !== undefined) sent.set(entry.Id, entry);
      const wrong: unknown[] = [];
      for (const entry of args.input.Entries as SendMessageBatchRequestEntry[]) {
        const answer = sent.get(entry.Id);
        if (answer && answer.MD5OfMessageBody !== md5(entry.MessageBody)) wrong.push(answer.MessageId);
      }
      if (wrong.length > 0) throw new Error(`Invalid MD5 checksum on messages: ${wrong.join(', ')}`);
      return result;
    },
  },
  {
    name: 'receiveMessageMiddleware',
    command: 'ReceiveMessageCommand',
    check: (next) => async (args) => {
      const result = await next(args);
      const wrong: unknown[] = [];
      for (const message of (result.output.Messages ?? []) as Message[])
        if (message.MD5OfBody !== md5(message.Body)) wrong.push(message.MessageId);
      if (wrong.length > 0) throw new Error(`Invalid MD5 checksum on messages: ${wrong.join(', ')}`);
      return result;
    },
  },
];

// ---------------------------------------------------------------------------------------------------------------
// The client.

/** What the client's calls read (`requestHandler` may be replaced, as the SDK's). */
export type SQSClientConfig = JsonClientConfig;

/** As the SDK's client takes them (the local runtime gives all three; the service none: the environment's). */
export interface SQSClientOptions {
  readonly region?: string;
  readonly endpoint?: string;
  readonly credentials?: AwsCredentialIdentity;
  /** `false`: no MD5 checks of message bodies (the SDK's option). */
  readonly md5?: boolean;
}

const TARGET_PREFIX = 'AmazonSQS.';
const CONTENT_TYPE = 'application/x-amz-json-1.0';

interface Origin {
  readonly protocol: string;
  readonly hostname: string;
  readonly port: number | undefined;
  readonly host: string;
  readonly path: string;
}

const originOf = (url: URL): Origin => {
  const port = url.port === '' ? undefined : Number(url.port);
  return {
    protocol: url.protocol,
    hostname: url.hostname,
    port,
    host: port === undefined ? url.hostname : `${url.hostname}:${port}`,
    path: url.pathname.endsWith('/') ? url.pathname : `${url.pathname}/`,
  };
};

/** The service's SQS client: `send` a command of this module. */
export class SQSClient {
  readonly config: SQSClientConfig;
  readonly middlewareStack = new MiddlewareStack();
  readonly #origin: Origin;
  /** The endpoint was given: a `QueueUrl` never moves a request elsewhere. */
  readonly #fixed: boolean;
  /** The last `QueueUrl` on another origin, and that origin (a service sends to one or two queues). */
  #queueUrl: string | undefined;
  #queueOrigin: Origin | undefined;

  constructor(options: SQSClientOptions = {}) {
    this.#fixed = options.endpoint !== undefined;
    // The SDK's default for SQS: 3 attempts (its client passes no service defaults).
    this.config = resolveClientConfig({ label: 'SQS', signingName: 'sqs', endpointId: 'SQS', maxAttempts: 3 }, options);
    const endpoint = this.config.endpoint;
    this.#origin = originOf(endpoint);

    if (options.md5 !== false) {
      for (const { name, command, check } of md5Checks)
        this.middlewareStack.add((next, context) => (context.commandName === command ? check(next, context) : next), {
          step: 'initialize',
          name,
        });
    }
    this.middlewareStack.add((next, context) => (args) => next(this.#serialized(args, context)), {
      step: 'serialize',
      name: 'serializerMiddleware',
    });
    addRetryAndSigning(this.middlewareStack, this.config);
  }

  /** Where a call goes: the endpoint, or (as the SDK's `queueUrlMiddleware`) its queue's origin when that differs. */
  #originFor(queueUrl: unknown): Origin {
    if (this.#fixed || typeof queueUrl !== 'string') return this.#origin;
    if (queueUrl === this.#queueUrl && this.#queueOrigin) return this.#queueOrigin;
    let url: URL;
    try {
      url = new URL(queueUrl);
    } catch {
      return this.#origin;
    }
    if (url.origin === this.config.endpoint.origin) return this.#origin;
    this.#queueUrl = queueUrl;
    this.#queueOrigin = originOf(new URL(url.origin));
    return this.#queueOrigin;
  }

  /** The `serialize` step: the request. */
  readonly #serialized = (args: Args, context: MiddlewareContext): Args => {
    const body = jsonBody(args.input);
    const origin = this.#originFor(args.input.QueueUrl);
    const request = new HttpRequest({
      protocol: origin.protocol,
      hostname: origin.hostname,
      ...(origin.port === undefined ? {} : { port: origin.port }),
      method: 'POST',
      path: origin.path,
      query: {},
      headers: {
        'content-type': CONTENT_TYPE,
        'x-amz-target': `${TARGET_PREFIX}${(context.smithyContext as { operation: string }).operation}`,
        'x-amzn-query-mode': 'true',
        'content-length': String(Buffer.byteLength(body)),
        host: origin.host,
      },
      body,
    });
    return { ...args, request };
  };

  /** The innermost handler: sends the request, raises an error answer, parses a 2xx one. */
  readonly #transmit = async (args: Args, abortSignal: AbortSignal | undefined): Promise<Result> => {
    const { response } = await this.config.requestHandler.handle(
      args.request as HttpRequest,
      abortSignal ? { abortSignal } : undefined,
    );
    const text = await readBody(response.body);
    let parsed: Json;
    try {
      parsed = parseBody(text);
    } catch (error) {
      throw unreadable(error, response);
    }
    if (response.statusCode < 200 || response.statusCode >= 300) throw sqsError(response, parsed);
    parsed.$metadata = metadataOf(response);
    return { response, output: parsed };
  };

  send<I extends object, O extends object>(
    command: SqsCommand<I, O>,
    options: { readonly abortSignal?: AbortSignal } = {},
  ): Promise<O> {
    const name = command.name;
    const context: MiddlewareContext = {
      clientName: 'SQSClient',
      commandName: `${name}Command`,
      smithyContext: { operation: name },
      // The SDK marks a receive as a long poll: its retries do not wait for retry tokens.
      ...(name === 'ReceiveMessage' ? { __retryLongPoll: true } : {}),
    };
    const abortSignal = options.abortSignal;
    return sendThrough(this.middlewareStack, context, command.input as Json, (args) =>
      this.#transmit(args, abortSignal),
    ) as Promise<O>;
  }

  /** Nothing to free but the HTTP handler's sockets. */
  destroy(): void {
    (this.config.requestHandler as { destroy?: () => void }).destroy?.();
  }
}
