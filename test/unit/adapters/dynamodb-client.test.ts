/**
 * The service's DynamoDB document client (shared/adapters/dynamodb-client.ts) against the SDK's
 * (`@aws-sdk/lib-dynamodb` over `@aws-sdk/client-dynamodb`, as the service used it): for every operation, the same
 * request (method, path, target, content type, JSON body; signed headers for a fixed date and credentials), the same
 * output from the same answer, the same errors and retries. Both clients send to a request handler that records the
 * request and answers from a list, without any network.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import * as sdk from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { leanClients } from '#local/lean-clients.ts';
import { observed } from '#shared/adapters/client-observers.ts';
import * as mine from '#shared/adapters/dynamodb-client.ts';
import { type Answer, type Captured, recorder, signSameBytes, stubAwsEnvironment } from '#test/support/aws-recorder.ts';

const MARSHALL = { removeUndefinedValues: true, convertClassInstanceToMap: true };
const TABLE = 'storeflow-test';

const environment = (endpoint: string | null) => stubAwsEnvironment('DYNAMODB', endpoint);

/** Both clients, each with its recorder; `same` sends one input through both (each with its own command). */
/** `endpoint` null: none set (the regional endpoint). */
const clients = (endpoint: string | null = 'http://127.0.0.1:8000') => {
  environment(endpoint);
  const theirs = recorder();
  const ours = recorder();
  const sdkClient = sdk.DynamoDBDocumentClient.from(new DynamoDBClient({ requestHandler: theirs.handler }), {
    marshallOptions: { ...MARSHALL },
  });
  const myClient = new mine.DynamoDBDocumentClient({ marshallOptions: MARSHALL });
  myClient.config.requestHandler = ours.handler as never;
  return { theirs, ours, sdkClient, myClient };
};

type Name = 'GetCommand' | 'PutCommand' | 'UpdateCommand' | 'DeleteCommand' | 'QueryCommand' | 'ScanCommand';
type BatchName = 'BatchGetCommand' | 'BatchWriteCommand';

/** Sends `input` as `name` through both clients; answers what each answered or threw. */
const both = async (
  pair: ReturnType<typeof clients>,
  name: Name | BatchName,
  input: object,
): Promise<{ theirs: unknown; ours: unknown }> => {
  const settle = (promise: Promise<unknown>) =>
    promise.then(
      (value) => value,
      (error: unknown) => error,
    );
  // biome-ignore lint/suspicious/noExplicitAny: the same input through both libraries' command of that name.
  const ours = await settle(pair.myClient.send(new (mine as any)[name](structuredClone(input))));
  // biome-ignore lint/suspicious/noExplicitAny: see above.
  const theirs = await settle(pair.sdkClient.send(new (sdk as any)[name](structuredClone(input))));
  return { theirs, ours };
};

/** What a request carries that DynamoDB reads. */
const wire = (request: Captured | undefined) => ({
  method: request?.method,
  protocol: request?.protocol,
  hostname: request?.hostname,
  port: request?.port,
  path: request?.path,
  target: request?.headers['x-amz-target'],
  contentType: request?.headers['content-type'],
  contentLength: request?.headers['content-length'],
  body: JSON.parse(request?.body ?? 'null'),
});

const ITEM = {
  pk: 'CONTACT#st_1#c_1',
  sk: 'PROFILE',
  email: 'ana@example.com',
  revision: 17,
  ratio: 0.25,
  negative: -3,
  subscribed: true,
  unsubscribed: false,
  nothing: null,
  empty: '',
  dropped: undefined,
  tags: new Set(['a', 'b']),
  counts: new Set([1, 2, 3]),
  packs: new Set([Uint8Array.from([1, 2, 3]), Uint8Array.from([250, 251])]),
  packed: Uint8Array.from([0, 1, 127, 128, 255]),
  buffer: Buffer.from('héllo'),
  list: [1, 'two', null, true, { three: 3, skipped: undefined }],
  emptyList: [],
  emptyMap: {},
  // Free-form event data with an own `constructor` key: a plain map (`convertClassInstanceToMap`).
  properties: { constructor: 'x', plan: 'gold', nested: { deep: ['x'] } },
};
const KEY = { pk: 'CONTACT#st_1#c_1', sk: 'PROFILE' };

/** The same item as DynamoDB answers it (JSON, binary as base64). */
const STORED = {
  pk: { S: 'CONTACT#st_1#c_1' },
  sk: { S: 'PROFILE' },
  revision: { N: '17' },
  ratio: { N: '0.25' },
  subscribed: { BOOL: true },
  nothing: { NULL: true },
  tags: { SS: ['a', 'b'] },
  counts: { NS: ['1', '2', '3'] },
  packs: { BS: ['AQID', '+vs='] },
  packed: { B: 'AAF/gP8=' },
  list: { L: [{ N: '1' }, { S: 'two' }, { NULL: true }, { BOOL: true }, { M: { three: { N: '3' } } }] },
  properties: { M: { constructor: { S: 'x' }, plan: { S: 'gold' } } },
};
const STORED_KEY = { pk: { S: 'CONTACT#st_1#c_1' }, sk: { S: 'PROFILE' } };
const CONSUMED = { TableName: TABLE, CapacityUnits: 1.5 };

/** Each operation the service sends: an input as the adapters write them, and an answer with every output member. */
const CASES: readonly { readonly name: Name | BatchName; readonly input: object; readonly answer: object }[] = [
  {
    name: 'GetCommand',
    input: {
      TableName: TABLE,
      Key: KEY,
      ConsistentRead: true,
      ProjectionExpression: '#e, revision',
      ExpressionAttributeNames: { '#e': 'email' },
      ReturnConsumedCapacity: 'TOTAL',
    },
    answer: { Item: STORED, ConsumedCapacity: CONSUMED },
  },
  {
    name: 'PutCommand',
    input: {
      TableName: TABLE,
      Item: ITEM,
      ConditionExpression: 'attribute_not_exists(pk) OR revision < :revision',
      ExpressionAttributeValues: { ':revision': 17 },
      ReturnValues: 'ALL_OLD',
    },
    answer: {
      Attributes: STORED,
      ConsumedCapacity: CONSUMED,
      ItemCollectionMetrics: { ItemCollectionKey: { pk: { S: 'x' } }, SizeEstimateRangeGB: [0, 1] },
    },
  },
  {
    name: 'UpdateCommand',
    input: {
      TableName: TABLE,
      Key: KEY,
      UpdateExpression: 'SET #p = :p, n = if_not_exists(n, :zero) + :one, m = :m ADD s :s REMOVE gone',
      ConditionExpression: 'attribute_exists(pk) AND #r = :r',
      ExpressionAttributeNames: { '#p': 'properties', '#r': 'revision' },
      ExpressionAttributeValues: {
        ':p': { plan: 'gold', constructor: 'y', gone: undefined },
        ':zero': 0,
        ':one': 1,
        ':m': [Uint8Array.from([9])],
        ':s': new Set(['x']),
        ':r': 16,
      },
      ReturnValues: 'ALL_NEW',
    },
    answer: { Attributes: STORED },
  },
  {
    name: 'DeleteCommand',
    input: {
      TableName: TABLE,
      Key: KEY,
      ConditionExpression: 'revision = :r',
      ExpressionAttributeValues: { ':r': 3 },
      ReturnValues: 'ALL_OLD',
    },
    answer: { Attributes: STORED },
  },
  {
    name: 'QueryCommand',
    input: {
      TableName: TABLE,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk AND begins_with(gsi1sk, :prefix)',
      FilterExpression: 'attribute_exists(email)',
      ExpressionAttributeValues: { ':pk': 'EMAIL#st_1', ':prefix': 'a' },
      ExclusiveStartKey: { ...KEY, gsi1pk: 'EMAIL#st_1', gsi1sk: 'ana' },
      Limit: 25,
      ScanIndexForward: false,
      ConsistentRead: false,
    },
    answer: { Items: [STORED, STORED], Count: 2, ScannedCount: 3, LastEvaluatedKey: STORED_KEY },
  },
  {
    name: 'QueryCommand',
    input: {
      TableName: TABLE,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': 'CONTACT#st_1' },
      Select: 'COUNT',
    },
    answer: { Count: 7, ScannedCount: 7 },
  },
  {
    name: 'ScanCommand',
    input: { TableName: TABLE, Limit: 100, ExclusiveStartKey: KEY },
    answer: { Items: [STORED], Count: 1, ScannedCount: 1 },
  },
  {
    name: 'BatchGetCommand',
    input: {
      RequestItems: {
        [TABLE]: { Keys: [KEY, { pk: 'STORE#st_1', sk: 'STORE' }], ConsistentRead: true, ProjectionExpression: 'pk' },
      },
    },
    answer: {
      Responses: { [TABLE]: [STORED] },
      UnprocessedKeys: { [TABLE]: { Keys: [STORED_KEY], ConsistentRead: true, ProjectionExpression: 'pk' } },
      ConsumedCapacity: [CONSUMED],
    },
  },
  {
    name: 'BatchWriteCommand',
    input: {
      RequestItems: { [TABLE]: [{ PutRequest: { Item: ITEM } }, { DeleteRequest: { Key: KEY } }] },
      ReturnConsumedCapacity: 'TOTAL',
    },
    answer: {
      UnprocessedItems: { [TABLE]: [{ PutRequest: { Item: STORED } }, { DeleteRequest: { Key: STORED_KEY } }] },
      ItemCollectionMetrics: { [TABLE]: [{ ItemCollectionKey: { pk: { S: 'x' } }, SizeEstimateRangeGB: [0, 1] }] },
    },
  },
];

afterEach(() => {
  vi.unstubAllEnvs();
  vi.useRealTimers();
});

describe('the DynamoDB document client, against the SDK', () => {
  it.each(CASES.map((entry, index) => [`${entry.name} #${index}`, entry] as const))(
    '%s: the same request and the same output',
    async (_label, { name, input, answer }) => {
      const pair = clients();
      pair.theirs.answers.push({ status: 200, body: JSON.stringify(answer) });
      pair.ours.answers.push({ status: 200, body: JSON.stringify(answer) });
      const { theirs, ours } = await both(pair, name, input);
      expect(theirs).not.toBeInstanceOf(Error);
      expect(pair.ours.requests).toHaveLength(1);
      expect(wire(pair.ours.requests[0])).toEqual(wire(pair.theirs.requests[0]));
      expect(ours).toEqual(theirs);
      // Binary values come back as bytes, as the SDK's.
      expect(JSON.stringify(answer).includes('"B"') ? JSON.stringify(ours) : '').not.toContain('"packed":"');
    },
  );

  it('leaves the input it was given as it was (the observers and the caller may read it again)', async () => {
    const pair = clients();
    const input = { TableName: TABLE, Item: { ...ITEM }, ExpressionAttributeValues: { ':r': 1 } };
    await pair.myClient.send(new mine.PutCommand(input));
    expect(input.Item).toEqual(ITEM);
    expect(input.ExpressionAttributeValues).toEqual({ ':r': 1 });
  });

  it('signs each request as the SDK does (fixed date and credentials), for the regional endpoint', async () => {
    vi.useFakeTimers({ now: new Date('2027-01-15T08:00:00Z'), toFake: ['Date'] });
    const pair = clients(null);
    signSameBytes(pair.sdkClient.middlewareStack as never, pair.myClient.middlewareStack, pair.ours.requests);
    for (const { name, input } of CASES) await both(pair, name, input);
    expect(pair.ours.requests).toHaveLength(CASES.length);
    for (const [index, request] of pair.ours.requests.entries()) {
      const sdkRequest = pair.theirs.requests[index];
      expect(request.hostname).toBe('dynamodb.eu-west-1.amazonaws.com');
      expect(request.protocol).toBe('https:');
      expect(wire(request)).toEqual(wire(sdkRequest));
      expect(request.headers).toEqual(sdkRequest?.headers);
      expect(request.headers.authorization).toMatch(
        /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/20270115\/eu-west-1\/dynamodb\/aws4_request, SignedHeaders=[^ ]+, Signature=[0-9a-f]{64}$/,
      );
      expect(request.headers['x-amz-security-token']).toBe('session-token');
    }
  });

  it('raises errors as the SDK does: name, message, fault, metadata and the answer’s members', async () => {
    const errors: Answer[] = [
      {
        status: 400,
        body: JSON.stringify({
          __type: 'com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException',
          message: 'The conditional request failed',
          Item: STORED,
        }),
      },
      {
        status: 400,
        body: JSON.stringify({ __type: 'com.amazon.coral.validate#ValidationException', message: 'bad' }),
      },
      {
        status: 400,
        body: JSON.stringify({
          __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
          Message: 'Transaction cancelled',
          CancellationReasons: [{ Code: 'ConditionalCheckFailed', Item: STORED_KEY }, { Code: 'None' }],
        }),
      },
      { status: 400, body: JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#ResourceNotFoundException' }) },
      {
        status: 413,
        body: '<html>Request Entity Too Large</html>',
        headers: { 'x-amzn-errortype': 'TooLarge:http://x' },
      },
      { status: 400, body: '', headers: { 'x-amzn-errortype': 'SerializationException:http://x' } },
      { status: 200, body: '{"Item": ' },
    ];
    for (const answer of errors) {
      const pair = clients();
      pair.theirs.answers.push(answer);
      pair.ours.answers.push(answer);
      const { theirs, ours } = await both(pair, 'PutCommand', {
        TableName: TABLE,
        Item: ITEM,
        ConditionExpression: 'attribute_not_exists(pk)',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      });
      const seen = (error: unknown) => {
        const e = error as Record<string, unknown> & { $metadata: Record<string, unknown> };
        return {
          isError: error instanceof Error,
          name: e.name,
          message: e.message,
          $fault: e.$fault,
          $metadata: e.$metadata,
          Item: e.Item,
          CancellationReasons: e.CancellationReasons,
        };
      };
      expect(seen(ours)).toEqual(seen(theirs));
      expect(pair.ours.requests).toHaveLength(pair.theirs.requests.length);
    }
  });

  it('retries as the SDK does: throttling, 5xx and network errors, with the attempts in $metadata', async () => {
    const sequences: Answer[][] = [
      [
        { status: 400, body: JSON.stringify({ __type: 'x#ProvisionedThroughputExceededException', message: 'slow' }) },
        { status: 400, body: JSON.stringify({ __type: 'x#ThrottlingException', message: 'slow' }) },
        { status: 200, body: JSON.stringify({ Item: STORED }) },
      ],
      [
        { status: 400, body: JSON.stringify({ __type: 'x#RequestLimitExceeded', message: 'limit' }) },
        { status: 500, body: JSON.stringify({ __type: 'x#InternalServerError', message: 'oops' }) },
        { status: 200, body: JSON.stringify({ Item: STORED }) },
      ],
      [
        Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }),
        { status: 503, body: '' },
        { status: 200, body: '{}' },
      ],
      // Four attempts, then the last error.
      [500, 502, 503, 500].map((status) => ({ status, body: JSON.stringify({ __type: 'x#InternalServerError' }) })),
    ];
    for (const answers of sequences) {
      const pair = clients();
      pair.theirs.answers.push(...answers);
      pair.ours.answers.push(...answers);
      const { theirs, ours } = await both(pair, 'GetCommand', { TableName: TABLE, Key: KEY });
      expect(pair.ours.requests).toHaveLength(pair.theirs.requests.length);
      expect(pair.ours.requests.map((r) => r.headers['amz-sdk-request'])).toEqual(
        pair.theirs.requests.map((r) => r.headers['amz-sdk-request']),
      );
      const metadata = (result: unknown) => {
        const { attempts, httpStatusCode } = (result as { $metadata: Record<string, unknown> }).$metadata;
        return { attempts, httpStatusCode, name: (result as Error).name, error: result instanceof Error };
      };
      expect(metadata(ours)).toEqual(metadata(theirs));
      if (!(theirs instanceof Error))
        expect({ ...(ours as object), $metadata: 0 }).toEqual({ ...(theirs as object), $metadata: 0 });
    }
  });

  it('names its client and the low-level command to the middlewares, with the input as given before marshalling', async () => {
    const pair = clients();
    const seen: { theirs: unknown[]; ours: unknown[] } = { theirs: [], ours: [] };
    const watch =
      (into: unknown[], step: string) =>
      (next: (args: { input: object }) => Promise<unknown>, context: { clientName?: string; commandName?: string }) =>
      async (args: { input: object }) => {
        into.push({ step, client: context.clientName, command: context.commandName, input: args.input });
        return next(args);
      };
    for (const [client, into] of [
      [pair.sdkClient, seen.theirs],
      [pair.myClient, seen.ours],
    ] as const) {
      for (const step of ['initialize', 'deserialize'] as const) {
        (client.middlewareStack as sdk.DynamoDBDocumentClient['middlewareStack']).add(watch(into, step) as never, {
          step: step as 'initialize',
          name: `watch-${step}`,
        });
      }
    }
    for (const { name, input } of CASES) await both(pair, name, input);
    expect(seen.ours).toEqual(seen.theirs);
    expect(seen.ours[0]).toMatchObject({ client: 'DynamoDBClient', command: 'GetItemCommand' });
  });
});

describe('the local runtime', () => {
  it('applies its lean middlewares to the client: unsigned, no signing middleware, once', async () => {
    const pair = clients();
    const stop = leanClients();
    try {
      observed('dynamodb', pair.myClient);
      leanClients()();
      await pair.myClient.send(new mine.GetCommand({ TableName: TABLE, Key: KEY }));
      expect(pair.ours.requests[0]?.headers.authorization).toMatch(
        /^AWS4-HMAC-SHA256 Credential=local\/\d{8}\/us-east-1\/dynamodb\/aws4_request, SignedHeaders=host;x-amz-date, Signature=0$/,
      );
      expect(pair.ours.requests[0]?.headers['x-amz-security-token']).toBeUndefined();
      const stack = pair.myClient.middlewareStack.identify();
      expect(stack.filter((entry) => entry.startsWith('storeflowLocalUnsigned'))).toHaveLength(1);
      expect(stack.some((entry) => entry.startsWith('httpSigningMiddleware'))).toBe(false);
    } finally {
      stop();
    }
  });
});

describe('its middleware stack', () => {
  it('orders by step, then priority, then insertion; relative ones beside their target; remove and identify', () => {
    const stack = new mine.MiddlewareStack();
    const noop = <T>(next: T) => next;
    stack.add(noop, { step: 'deserialize', name: 'd1' });
    stack.add(noop, { step: 'initialize', name: 'i1' });
    stack.add(noop, { step: 'finalizeRequest', name: 'retry', priority: 'high' });
    stack.add(noop, { step: 'finalizeRequest', name: 'f1' });
    stack.add(noop, { step: 'initialize', name: 'i0', priority: 'high' });
    stack.addRelativeTo(noop, { name: 'sign', relation: 'after', toMiddleware: 'retry' });
    stack.addRelativeTo(noop, { name: 'preSign', relation: 'before', toMiddleware: 'sign' });
    stack.addRelativeTo(noop, { name: 'postRetry', relation: 'after', toMiddleware: 'retry' });
    expect(stack.identify().map((entry) => entry.split(' - ')[0])).toEqual([
      'i0',
      'i1',
      'retry',
      'postRetry',
      'preSign',
      'sign',
      'f1',
      'd1',
    ]);
    expect(stack.remove('sign')).toBe(true);
    expect(stack.remove('sign')).toBe(false);
    expect(stack.identify().map((entry) => entry.split(' - ')[0])).toEqual([
      'i0',
      'i1',
      'retry',
      'postRetry',
      'f1',
      'd1',
    ]);
  });
});
