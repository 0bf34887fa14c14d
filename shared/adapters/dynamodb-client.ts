/**
 * The service's DynamoDB document client: the seven operations the adapters send (`GetItem`, `PutItem`, `UpdateItem`,
 * `DeleteItem`, `Query`, `BatchGetItem`, `BatchWriteItem`, and `Scan` for the tests and tools), with the names and input
 * shapes of `@aws-sdk/lib-dynamodb`'s commands (`PutCommand`…), so an adapter changes only its import line.
 *
 * Why: the SDK's document client cost 114–131 µs of CPU per call before any byte was sent (a
 * microbench against a handler answering `{}`, with the local runtime's lean middlewares): per call it resolves a
 * middleware stack for the document command and another for the low-level one, resolves the endpoint rules, spreads
 * the client config into new objects, and walks the operation's schema to serialize and parse. Every service path
 * makes several DynamoDB calls per event. This client keeps the same wire format and behaviour for a fraction of it:
 * - JSON 1.0 (`POST /`, `X-Amz-Target: DynamoDB_20120810.<Operation>`, `application/x-amz-json-1.0`), the input's
 *   values marshalled by `@aws-sdk/util-dynamodb` where lib-dynamodb marshals them (items, keys, expression values),
 *   with `removeUndefinedValues` and `convertClassInstanceToMap`, and the outputs' items unmarshalled where it
 *   unmarshals them; binary values base64 both ways, as the SDK's JSON codec;
 * - errors as the SDK raises them (`ServiceException`s named after the `#` of `__type`, `$fault`, `$metadata`, the
 *   answer's other members, e.g. a failed condition's `Item` as DynamoDB sends it);
 * - the SDK's own retry middleware and standard strategy with DynamoDB's defaults (4 attempts, 25 ms base delay;
 *   `AWS_MAX_ATTEMPTS`, `AWS_RETRY_MODE`), SigV4 (`dynamodb`) inside the retry loop so each attempt is signed afresh;
 * - the endpoint from `AWS_ENDPOINT_URL_DYNAMODB` / `AWS_ENDPOINT_URL`, else `https://dynamodb.<region>.amazonaws.com`;
 * - the extension points: a middleware stack with the SDK's steps (`initialize`, `serialize`, `build`,
 *   `finalizeRequest`, `deserialize`), `add`/`addRelativeTo`/`remove`/`identify`, the context naming the SDK's client
 *   and low-level command (`DynamoDBClient`, `PutItemCommand`), `initialize` middlewares seeing the input as given
 *   (unmarshalled) and `deserialize` ones sitting inside the retries, `httpSigningMiddleware` after `retryMiddleware`,
 *   and `config.requestHandler` read per call: the client observers (`client-observers.ts`), the local runtime's lean
 *   clients and in-process transport, the bench's counters and the fault-injection tests use it as they used the SDK's.
 * The stack is sorted once per change, not once per call. Not kept: the user agent and the Lambda recursion-detection
 * header (as `signed-client.ts`), account-ID endpoints, endpoint discovery (off by default in the SDK too).
 * `test/unit/adapters/dynamodb-client.test.ts` compares its requests, answers and errors with the SDK's.
 */
import type {
  BatchGetCommandInput,
  BatchGetCommandOutput,
  BatchWriteCommandInput,
  BatchWriteCommandOutput,
  DeleteCommandInput,
  DeleteCommandOutput,
  GetCommandInput,
  GetCommandOutput,
  PutCommandInput,
  PutCommandOutput,
  QueryCommandInput,
  QueryCommandOutput,
  ScanCommandInput,
  ScanCommandOutput,
  UpdateCommandInput,
  UpdateCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import { marshall, type marshallOptions, unmarshall } from '@aws-sdk/util-dynamodb';
import type { ServiceException } from '@smithy/core/client';
import { HttpRequest, type HttpResponse } from '@smithy/core/transport';
import {
  type Args,
  addRetryAndSigning,
  type Json,
  type JsonClientConfig,
  jsonBody,
  serviceError as jsonServiceError,
  type MiddlewareContext,
  MiddlewareStack,
  metadataOf,
  parseJsonAnswer,
  type Result,
  readBody,
  resolveClientConfig,
  sendThrough,
  unreadable,
} from './json-client.ts';

export { type MiddlewareContext, MiddlewareStack } from './json-client.ts';

/** The adapters' own functions take a query's input (e.g. a page's). */
export type { QueryCommandInput };

/** As aws-clients.ts gave lib-dynamodb: a JSON object with an own `constructor` key is still a plain map. */
const MARSHALL: marshallOptions = { removeUndefinedValues: true, convertClassInstanceToMap: true };

// ---------------------------------------------------------------------------------------------------------------
// Marshalling: where lib-dynamodb marshals and unmarshals (its commands' `inputKeyNodes` and `outputKeyNodes`).

/** An item, key or map of expression values: each value marshalled (undefined ones left out). */
const marshallValues = (values: unknown): unknown =>
  values === undefined || values === null ? values : marshall(values as Json, MARSHALL);

const unmarshallValues = (values: unknown): unknown =>
  values === undefined || values === null ? values : unmarshall(values as never);

/** `{ table: [entry…] }` with `entry` mapped (batch requests and answers). */
const perTable = <T>(tables: unknown, each: (entry: T) => unknown): unknown => {
  if (tables === undefined || tables === null) return tables;
  const out: Json = {};
  for (const [table, entries] of Object.entries(tables as Json)) out[table] = (entries as T[]).map(each);
  return out;
};

const withKeys = (request: unknown, convert: (values: unknown) => unknown): unknown => {
  if (request === undefined || request === null) return request;
  const { Keys } = request as { Keys?: unknown[] };
  return { ...(request as Json), Keys: Keys?.map(convert) };
};

const perTableKeys = (tables: unknown, convert: (values: unknown) => unknown): unknown => {
  if (tables === undefined || tables === null) return tables;
  const out: Json = {};
  for (const [table, request] of Object.entries(tables as Json)) out[table] = withKeys(request, convert);
  return out;
};

const writeRequest = (convert: (values: unknown) => unknown) => (entry: Json) => {
  const out: Json = { ...entry };
  const put = entry.PutRequest as Json | undefined;
  const del = entry.DeleteRequest as Json | undefined;
  if (put) out.PutRequest = { ...put, Item: convert(put.Item) };
  if (del) out.DeleteRequest = { ...del, Key: convert(del.Key) };
  return out;
};

/** The members (of an input or output) that carry attribute values, and how each is converted. */
type Members = Readonly<Record<string, (value: unknown, convert: (values: unknown) => unknown) => unknown>>;

const values = (value: unknown, convert: (values: unknown) => unknown) => convert(value);
const itemList = (value: unknown, convert: (values: unknown) => unknown) =>
  (value as unknown[] | undefined)?.map(convert);
const collectionKey = (value: unknown, convert: (values: unknown) => unknown) =>
  value && (value as Json).ItemCollectionKey !== undefined
    ? { ...(value as Json), ItemCollectionKey: convert((value as Json).ItemCollectionKey) }
    : value;

const convertMembers = (object: Json, members: Members, convert: (values: unknown) => unknown): Json => {
  let out: Json | undefined;
  for (const name in members) {
    const value = object[name];
    if (value === undefined) continue;
    out ??= { ...object };
    out[name] = (members[name] as Members[string])(value, convert);
  }
  return out ?? object;
};

// ---------------------------------------------------------------------------------------------------------------
// The operations.

interface Operation {
  /** DynamoDB's operation name (`PutItem`); the SDK's command is `${name}Command`. */
  readonly name: string;
  readonly input: Members;
  readonly output: Members;
}

const WRITE_INPUT: Members = { Key: values, ExpressionAttributeValues: values };
const WRITE_OUTPUT: Members = { Attributes: values, ItemCollectionMetrics: collectionKey };
const PAGE_INPUT: Members = { ExclusiveStartKey: values, ExpressionAttributeValues: values };
const PAGE_OUTPUT: Members = { Items: itemList, LastEvaluatedKey: values };

const OPERATIONS = {
  get: { name: 'GetItem', input: { Key: values }, output: { Item: values } },
  put: { name: 'PutItem', input: { Item: values, ExpressionAttributeValues: values }, output: WRITE_OUTPUT },
  update: { name: 'UpdateItem', input: WRITE_INPUT, output: WRITE_OUTPUT },
  delete: { name: 'DeleteItem', input: WRITE_INPUT, output: WRITE_OUTPUT },
  query: { name: 'Query', input: PAGE_INPUT, output: PAGE_OUTPUT },
  /** Not sent by the service: the tests and operator tools read the whole (local) table with it. */
  scan: { name: 'Scan', input: PAGE_INPUT, output: PAGE_OUTPUT },
  batchGet: {
    name: 'BatchGetItem',
    input: { RequestItems: perTableKeys },
    output: {
      Responses: (value, convert) => perTable(value, convert),
      UnprocessedKeys: perTableKeys,
    },
  },
  batchWrite: {
    name: 'BatchWriteItem',
    input: { RequestItems: (value, convert) => perTable(value, writeRequest(convert)) },
    output: {
      UnprocessedItems: (value, convert) => perTable(value, writeRequest(convert)),
      ItemCollectionMetrics: (value, convert) => perTable(value, (metrics) => collectionKey(metrics, convert)),
    },
  },
} as const satisfies Record<string, Operation>;

/** One call: what `send` takes. `input` is the command's input as given (what lib-dynamodb's commands keep too). */
export abstract class DocumentCommand<I extends object, O extends object> {
  abstract readonly operation: Operation;
  readonly input: I;
  /** Types the answer (never set). */
  declare readonly __output?: O;
  constructor(input: I) {
    this.input = input;
  }
}

/** The command class of one operation, typed as lib-dynamodb's. */
const commandOf = <I extends object, O extends object>(operation: Operation) =>
  class extends DocumentCommand<I, O> {
    readonly operation = operation;
  };

export const GetCommand = commandOf<GetCommandInput, GetCommandOutput>(OPERATIONS.get);
export const PutCommand = commandOf<PutCommandInput, PutCommandOutput>(OPERATIONS.put);
export const UpdateCommand = commandOf<UpdateCommandInput, UpdateCommandOutput>(OPERATIONS.update);
export const DeleteCommand = commandOf<DeleteCommandInput, DeleteCommandOutput>(OPERATIONS.delete);
export const QueryCommand = commandOf<QueryCommandInput, QueryCommandOutput>(OPERATIONS.query);
export const ScanCommand = commandOf<ScanCommandInput, ScanCommandOutput>(OPERATIONS.scan);
export const BatchGetCommand = commandOf<BatchGetCommandInput, BatchGetCommandOutput>(OPERATIONS.batchGet);
export const BatchWriteCommand = commandOf<BatchWriteCommandInput, BatchWriteCommandOutput>(OPERATIONS.batchWrite);

// ---------------------------------------------------------------------------------------------------------------
// JSON with binary values (the SDK's JSON codec: blobs as base64).

/** A parsed answer, its base64 `B`/`BS` attribute values decoded (only when its text has any). */
const parseBody = (text: string): Json => parseJsonAnswer(text, 'B', 'BS');

// ---------------------------------------------------------------------------------------------------------------
// Answers and errors.
/** DynamoDB's modeled errors of the server's fault (every other modeled one is the client's). */
const SERVER_ERRORS = new Set(['InternalServerError']);
/** The errors DynamoDB models (their `$fault` is the model's, not the status's). */
const MODELED_ERRORS = new Set([
  'BackupInUseException',
  'BackupNotFoundException',
  'ConditionalCheckFailedException',
  'ContinuousBackupsUnavailableException',
  'DuplicateItemException',
  'ExportConflictException',
  'ExportNotFoundException',
  'GlobalTableAlreadyExistsException',
  'GlobalTableNotFoundException',
  'IdempotentParameterMismatchException',
  'ImportConflictException',
  'ImportNotFoundException',
  'IndexNotFoundException',
  'InternalServerError',
  'InvalidEndpointException',
  'InvalidExportTimeException',
  'InvalidRestoreTimeException',
  'ItemCollectionSizeLimitExceededException',
  'LimitExceededException',
  'PointInTimeRecoveryUnavailableException',
  'PolicyNotFoundException',
  'ProvisionedThroughputExceededException',
  'ReplicaAlreadyExistsException',
  'ReplicaNotFoundException',
  'ReplicatedWriteConflictException',
  'RequestLimitExceeded',
  'ResourceInUseException',
  'ResourceNotFoundException',
  'TableAlreadyExistsException',
  'TableInUseException',
  'TableNotFoundException',
  'ThrottlingException',
  'TransactionCanceledException',
  'TransactionConflictException',
  'TransactionInProgressException',
]);

/** A non-2xx answer as the SDK's JSON 1.0 protocol raises it (DynamoDB's modeled errors). */
const serviceError = (response: HttpResponse, data: Json): ServiceException =>
  jsonServiceError(response, data, { modeled: MODELED_ERRORS, server: SERVER_ERRORS });

// ---------------------------------------------------------------------------------------------------------------
// The client.

/** What the client's calls read (`requestHandler` may be replaced: the local runtime's in-process transport). */
export type DynamoDBClientConfig = JsonClientConfig;

const TARGET_PREFIX = 'DynamoDB_20120810.';
const CONTENT_TYPE = 'application/x-amz-json-1.0';

/** The service's DynamoDB client: `send` a command of this module. */
export class DynamoDBDocumentClient {
  readonly config: DynamoDBClientConfig;
  readonly middlewareStack = new MiddlewareStack();
  readonly #marshallOptions: marshallOptions;
  readonly #host: string;
  readonly #port: number | undefined;
  readonly #path: string;

  constructor(options: { readonly marshallOptions?: marshallOptions } = {}) {
    this.#marshallOptions = options.marshallOptions ?? MARSHALL;
    this.config = resolveClientConfig({
      label: 'DynamoDB',
      signingName: 'dynamodb',
      endpointId: 'DYNAMODB',
      maxAttempts: 4,
      // DynamoDB's own defaults in the SDK (its client's `resolveRetryConfig` call).
      retryDefaults: { defaultBaseDelay: 25, defaultMaxAttempts: 4 },
    });
    const endpoint = this.config.endpoint;
    this.#host = endpoint.hostname;
    this.#port = endpoint.port === '' ? undefined : Number(endpoint.port);
    this.#path = endpoint.pathname === '' ? '/' : endpoint.pathname;

    const marshalled = this.#marshalled;
    this.middlewareStack.add((next, context) => (args) => next(marshalled(args, context.operation as Operation)), {
      step: 'serialize',
      name: 'serializerMiddleware',
    });
    addRetryAndSigning(this.middlewareStack, this.config);
  }

  /** The `serialize` step: the document input marshalled (as lib-dynamodb's `DocumentMarshall`) and the request. */
  readonly #marshalled = (args: Args, operation: Operation): Args => {
    const options = this.#marshallOptions;
    const convert =
      options === MARSHALL
        ? marshallValues
        : (value: unknown) => (value === undefined || value === null ? value : marshall(value as Json, options));
    const input = convertMembers(args.input, operation.input, convert);
    const body = jsonBody(input);
    const request = new HttpRequest({
      protocol: this.config.endpoint.protocol,
      hostname: this.#host,
      ...(this.#port === undefined ? {} : { port: this.#port }),
      method: 'POST',
      path: this.#path,
      query: {},
      headers: {
        'content-type': CONTENT_TYPE,
        'x-amz-target': `${TARGET_PREFIX}${operation.name}`,
        'content-length': String(Buffer.byteLength(body)),
        host: this.#port === undefined ? this.#host : `${this.#host}:${this.#port}`,
      },
      body,
    });
    return { ...args, input, request };
  };

  /** The innermost handler: sends the request, raises an error answer, parses (and unmarshals) a 2xx one. */
  readonly #transmit = async (args: Args, operation: Operation): Promise<Result> => {
    const { response } = await this.config.requestHandler.handle(args.request as HttpRequest);
    const text = await readBody(response.body);
    let parsed: Json;
    try {
      parsed = parseBody(text);
    } catch (error) {
      throw unreadable(error, response);
    }
    if (response.statusCode < 200 || response.statusCode >= 300) throw serviceError(response, parsed);
    const output = convertMembers(parsed, operation.output, unmarshallValues);
    output.$metadata = metadataOf(response);
    return { response, output };
  };

  send<I extends object, O extends object>(command: DocumentCommand<I, O>): Promise<O> {
    const operation = command.operation;
    const context: MiddlewareContext = {
      clientName: 'DynamoDBClient',
      commandName: `${operation.name}Command`,
      smithyContext: { operation: operation.name },
      operation,
    };
    return sendThrough(this.middlewareStack, context, command.input as Json, (args) =>
      this.#transmit(args, operation),
    ) as Promise<O>;
  }

  /** Nothing to free but the HTTP handler's sockets. */
  destroy(): void {
    (this.config.requestHandler as { destroy?: () => void }).destroy?.();
  }
}
