/**
 * The service's SQS client (shared/adapters/sqs-client.ts) against the SDK's (`@aws-sdk/client-sqs`): for every
 * operation, the same request (method, host, path, target, headers, JSON body; signed headers for a fixed date and
 * credentials), the same output from the same answer, the same errors, retries and MD5 checks. Both clients send to a
 * request handler that records the request and answers from a list, without any network.
 */
import { createHash } from 'node:crypto';
import * as sdk from '@aws-sdk/client-sqs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { leanClients } from '#local/lean-clients.ts';
import { observed } from '#shared/adapters/client-observers.ts';
import * as mine from '#shared/adapters/sqs-client.ts';
import { type Answer, type Captured, recorder, signSameBytes, stubAwsEnvironment } from '#test/support/aws-recorder.ts';

const ENDPOINT = 'http://127.0.0.1:4566';
const QUEUE = `${ENDPOINT}/000000000000/storeflow-ingest.fifo`;

const environment = (endpoint: string | null) => stubAwsEnvironment('SQS', endpoint);

/** Both clients, each with its recorder. `endpoint` null: none set (the regional endpoint). */
const clients = (endpoint: string | null = ENDPOINT, options: { md5?: boolean } = {}) => {
  environment(endpoint);
  const theirs = recorder();
  const ours = recorder();
  const sdkClient = new sdk.SQSClient({
    requestHandler: theirs.handler,
    ...(options.md5 === false ? { md5: false as const } : {}),
  });
  const myClient = new mine.SQSClient(options);
  myClient.config.requestHandler = ours.handler as never;
  return { theirs, ours, sdkClient, myClient };
};

type Name =
  | 'SendMessageCommand'
  | 'SendMessageBatchCommand'
  | 'ReceiveMessageCommand'
  | 'DeleteMessageCommand'
  | 'DeleteMessageBatchCommand'
  | 'ChangeMessageVisibilityCommand';

const settle = (promise: Promise<unknown>) =>
  promise.then(
    (value) => value,
    (error: unknown) => error,
  );

/** Sends `input` as `name` through both clients; answers what each answered or threw. */
const both = async (pair: ReturnType<typeof clients>, name: Name, input: object) => {
  // biome-ignore lint/suspicious/noExplicitAny: the same input through both libraries' command of that name.
  const ours = await settle(pair.myClient.send(new (mine as any)[name](structuredClone(input))));
  // biome-ignore lint/suspicious/noExplicitAny: see above.
  const theirs = await settle(pair.sdkClient.send(new (sdk as any)[name](structuredClone(input))));
  return { theirs, ours };
};

/** What a request carries that SQS reads. */
const wire = (request: Captured | undefined) => ({
  method: request?.method,
  protocol: request?.protocol,
  hostname: request?.hostname,
  port: request?.port,
  path: request?.path,
  target: request?.headers['x-amz-target'],
  contentType: request?.headers['content-type'],
  queryMode: request?.headers['x-amzn-query-mode'],
  contentLength: request?.headers['content-length'],
  body: JSON.parse(request?.body ?? 'null'),
});

const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');
const BODY = JSON.stringify({ type: 'customer', storeId: 'st_1', data: { email: 'ana@example.com', note: 'héllo ✓' } });
const ATTRIBUTES = {
  kind: { DataType: 'String', StringValue: 'customer' },
  packed: { DataType: 'Binary', BinaryValue: Uint8Array.from([0, 1, 127, 128, 255]) },
};

/** Each operation: an input as the service writes it, and an answer with every output member. */
const CASES: readonly { readonly name: Name; readonly input: object; readonly answer: object }[] = [
  {
    name: 'SendMessageCommand',
    input: {
      QueueUrl: QUEUE,
      MessageBody: BODY,
      MessageGroupId: 'st_1',
      MessageDeduplicationId: 'ev_1',
      MessageAttributes: ATTRIBUTES,
    },
    answer: {
      MessageId: 'm-1',
      MD5OfMessageBody: md5(BODY),
      MD5OfMessageAttributes: 'a'.repeat(32),
      SequenceNumber: '18849496460467696128',
    },
  },
  {
    name: 'SendMessageBatchCommand',
    input: {
      QueueUrl: QUEUE,
      Entries: [
        { Id: '0', MessageBody: BODY, MessageGroupId: 'st_1', MessageDeduplicationId: 'ev_1' },
        { Id: '1', MessageBody: 'two', DelaySeconds: 5 },
        { Id: '2', MessageBody: 'three' },
      ],
    },
    answer: {
      Successful: [
        { Id: '0', MessageId: 'm-0', MD5OfMessageBody: md5(BODY), SequenceNumber: '1' },
        { Id: '1', MessageId: 'm-1', MD5OfMessageBody: md5('two') },
      ],
      Failed: [{ Id: '2', SenderFault: true, Code: 'InvalidMessageContents', Message: 'no' }],
    },
  },
  {
    name: 'ReceiveMessageCommand',
    input: { QueueUrl: QUEUE, MaxNumberOfMessages: 10, WaitTimeSeconds: 1, MessageSystemAttributeNames: ['All'] },
    answer: {
      Messages: [
        {
          MessageId: 'm-0',
          ReceiptHandle: 'rh-0',
          MD5OfBody: md5(BODY),
          Body: BODY,
          Attributes: { ApproximateReceiveCount: '1', SentTimestamp: '1790000000000', MessageGroupId: 'st_1' },
          MD5OfMessageAttributes: 'b'.repeat(32),
          MessageAttributes: { packed: { DataType: 'Binary', BinaryValue: 'AAF/gP8=' } },
        },
        { MessageId: 'm-1', ReceiptHandle: 'rh-1', MD5OfBody: md5(''), Body: '' },
      ],
    },
  },
  {
    name: 'DeleteMessageBatchCommand',
    input: {
      QueueUrl: QUEUE,
      Entries: [
        { Id: '0', ReceiptHandle: 'rh-0' },
        { Id: '1', ReceiptHandle: 'rh-1' },
      ],
    },
    answer: {
      Successful: [{ Id: '0' }],
      Failed: [{ Id: '1', SenderFault: true, Code: 'ReceiptHandleIsInvalid', Message: 'gone' }],
    },
  },
  { name: 'DeleteMessageCommand', input: { QueueUrl: QUEUE, ReceiptHandle: 'rh-0' }, answer: {} },
  {
    name: 'ChangeMessageVisibilityCommand',
    input: { QueueUrl: QUEUE, ReceiptHandle: 'rh-0', VisibilityTimeout: 30 },
    answer: {},
  },
];

afterEach(() => {
  vi.unstubAllEnvs();
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('the SQS client, against the SDK', () => {
  it('builds the same request and reads the same output for each operation', async () => {
    for (const { name, input, answer } of CASES) {
      const pair = clients();
      pair.theirs.answers.push({ status: 200, body: JSON.stringify(answer) });
      pair.ours.answers.push({ status: 200, body: JSON.stringify(answer) });
      const { theirs, ours } = await both(pair, name, input);
      expect(wire(pair.ours.requests[0]), name).toEqual(wire(pair.theirs.requests[0]));
      expect(pair.ours.requests[0]?.hostname).toBe('127.0.0.1');
      expect(ours, name).not.toBeInstanceOf(Error);
      expect(ours, name).toEqual(theirs);
    }
  });

  it('leaves the input it was given as it was', async () => {
    const pair = clients();
    const input = { QueueUrl: QUEUE, MessageBody: 'hello', MessageAttributes: ATTRIBUTES };
    pair.ours.answers.push({ status: 200, body: JSON.stringify({ MessageId: 'm', MD5OfMessageBody: md5('hello') }) });
    await pair.myClient.send(new mine.SendMessageCommand(input));
    expect(input).toEqual({ QueueUrl: QUEUE, MessageBody: 'hello', MessageAttributes: ATTRIBUTES });
  });

  it('signs each request as the SDK does (fixed date and credentials), for the regional endpoint', async () => {
    vi.useFakeTimers({ now: new Date('2027-01-15T08:00:00Z'), toFake: ['Date'] });
    const pair = clients(null);
    signSameBytes(pair.sdkClient.middlewareStack as never, pair.myClient.middlewareStack, pair.ours.requests);
    const queue = 'https://sqs.eu-west-1.amazonaws.com/123456789012/storeflow-ingest.fifo';
    for (const { name, input, answer } of CASES) {
      pair.ours.answers.push({ status: 200, body: JSON.stringify(answer) });
      pair.theirs.answers.push({ status: 200, body: JSON.stringify(answer) });
      await both(pair, name, { ...input, QueueUrl: queue });
    }
    expect(pair.ours.requests).toHaveLength(CASES.length);
    for (const [index, request] of pair.ours.requests.entries()) {
      const sdkRequest = pair.theirs.requests[index];
      expect(request.hostname).toBe('sqs.eu-west-1.amazonaws.com');
      expect(request.protocol).toBe('https:');
      expect(wire(request)).toEqual(wire(sdkRequest));
      expect(request.headers).toEqual(sdkRequest?.headers);
      expect(request.headers.authorization).toMatch(
        /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/20270115\/eu-west-1\/sqs\/aws4_request, SignedHeaders=[^ ]+, Signature=[0-9a-f]{64}$/,
      );
      expect(request.headers['x-amz-security-token']).toBe('session-token');
    }
  });

  it('sends to the queue’s own origin when it differs from the environment’s endpoint, as the SDK does', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    const pair = clients('http://127.0.0.1:9999');
    await both(pair, 'DeleteMessageCommand', { QueueUrl: QUEUE, ReceiptHandle: 'rh' });
    expect(wire(pair.ours.requests[0])).toEqual(wire(pair.theirs.requests[0]));
    expect(pair.ours.requests[0]?.port).toBe(4566);
    // Given as an option, the endpoint is kept.
    const fixed = new mine.SQSClient({ endpoint: 'http://127.0.0.1:9999' });
    const seen = recorder();
    fixed.config.requestHandler = seen.handler as never;
    await fixed.send(new mine.DeleteMessageCommand({ QueueUrl: QUEUE, ReceiptHandle: 'rh' }));
    expect(seen.requests[0]?.port).toBe(9999);
  });

  it('raises errors as the SDK does: name, message, fault, metadata, Code, Type, Error and RequestId', async () => {
    const errors: Answer[] = [
      {
        status: 400,
        body: JSON.stringify({
          __type: 'com.amazonaws.sqs#QueueDoesNotExist',
          message: 'The specified queue does not exist.',
        }),
        headers: { 'x-amzn-query-error': 'AWS.SimpleQueueService.NonExistentQueue;Sender' },
      },
      {
        status: 400,
        body: JSON.stringify({ __type: 'com.amazonaws.sqs#QueueDoesNotExist', message: 'No queue.' }),
      },
      {
        status: 400,
        body: JSON.stringify({ __type: 'com.amazonaws.sqs#InvalidMessageContents', Message: 'Invalid characters' }),
        headers: { 'x-amzn-query-error': 'InvalidMessageContents;Sender' },
      },
      {
        status: 400,
        body: JSON.stringify({ __type: 'com.amazon.coral.validate#ValidationException', message: 'bad' }),
        headers: { 'x-amzn-query-error': 'InvalidParameterValue;Sender' },
      },
      {
        status: 403,
        body: JSON.stringify({ __type: 'com.amazonaws.sqs#KmsAccessDenied', message: 'denied' }),
        headers: { 'x-amzn-query-error': 'KMS.AccessDeniedException;Sender' },
      },
      { status: 400, body: JSON.stringify({ __type: 'com.amazonaws.sqs#Unmodelled', message: 'who knows' }) },
      { status: 413, body: '<html>Request Entity Too Large</html>', headers: { 'x-amzn-errortype': 'TooLarge:x' } },
      { status: 400, body: '', headers: { 'x-amzn-errortype': 'SerializationException:http://x' } },
      { status: 200, body: '{"MessageId": ' },
    ];
    for (const answer of errors) {
      const pair = clients();
      pair.theirs.answers.push(answer);
      pair.ours.answers.push(answer);
      const { theirs, ours } = await both(pair, 'SendMessageCommand', { QueueUrl: QUEUE, MessageBody: 'x' });
      const seen = (error: unknown) => {
        const e = error as Record<string, unknown> & { $metadata: Record<string, unknown> };
        return {
          isError: error instanceof Error,
          name: e.name,
          message: e.message,
          $fault: e.$fault,
          $metadata: e.$metadata,
          Code: e.Code,
          Type: e.Type,
          Error: e.Error,
          RequestId: e.RequestId,
          __type: e.__type,
        };
      };
      expect(seen(ours)).toEqual(seen(theirs));
      expect(pair.ours.requests).toHaveLength(pair.theirs.requests.length);
    }
  });

  it('retries as the SDK does: throttling, 5xx and network errors, with the attempts in $metadata', async () => {
    const sequences: Answer[][] = [
      [
        {
          status: 403,
          body: JSON.stringify({ __type: 'com.amazonaws.sqs#RequestThrottled', message: 'slow' }),
          headers: { 'x-amzn-query-error': 'RequestThrottled;Sender' },
        },
        { status: 200, body: JSON.stringify({ Messages: [] }) },
      ],
      [
        Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }),
        { status: 503, body: '' },
        { status: 200, body: '{}' },
      ],
      // Three attempts, then the last error.
      [500, 502, 503].map((status) => ({ status, body: JSON.stringify({ __type: 'x#InternalError' }) })),
    ];
    for (const answers of sequences) {
      const pair = clients();
      pair.theirs.answers.push(...answers);
      pair.ours.answers.push(...answers);
      const { theirs, ours } = await both(pair, 'ReceiveMessageCommand', { QueueUrl: QUEUE, WaitTimeSeconds: 0 });
      expect(pair.ours.requests).toHaveLength(pair.theirs.requests.length);
      expect(pair.ours.requests.map((r) => r.headers['amz-sdk-request'])).toEqual(
        pair.theirs.requests.map((r) => r.headers['amz-sdk-request']),
      );
      const metadata = (result: unknown) => {
        const { attempts, httpStatusCode } = (result as { $metadata: Record<string, unknown> }).$metadata;
        return { attempts, httpStatusCode, name: (result as Error).name, error: result instanceof Error };
      };
      expect(metadata(ours)).toEqual(metadata(theirs));
    }
  });

  it('checks the MD5 of message bodies as the SDK does, unless told not to', async () => {
    const wrong = [
      { name: 'SendMessageCommand', input: CASES[0]?.input, answer: { MessageId: 'm-1', MD5OfMessageBody: 'f00' } },
      {
        name: 'SendMessageBatchCommand',
        input: CASES[1]?.input,
        answer: { Successful: [{ Id: '1', MessageId: 'm-1', MD5OfMessageBody: md5('other') }], Failed: [] },
      },
      {
        name: 'ReceiveMessageCommand',
        input: CASES[2]?.input,
        answer: { Messages: [{ MessageId: 'm-7', ReceiptHandle: 'r', Body: 'tampered', MD5OfBody: md5('body') }] },
      },
    ] as const;
    for (const md5Option of [undefined, false]) {
      for (const { name, input, answer } of wrong) {
        const pair = clients(ENDPOINT, md5Option === undefined ? {} : { md5: md5Option });
        pair.theirs.answers.push({ status: 200, body: JSON.stringify(answer) });
        pair.ours.answers.push({ status: 200, body: JSON.stringify(answer) });
        const { theirs, ours } = await both(pair, name, input as object);
        expect(ours instanceof Error, name).toBe(md5Option === undefined);
        if (ours instanceof Error) expect(ours.message).toBe((theirs as Error).message);
        else expect(ours).toEqual(theirs);
      }
    }
  });

  it('names its client and command to the middlewares, and passes the abort signal to the request handler', async () => {
    const pair = clients();
    const seen: { theirs: unknown[]; ours: unknown[] } = { theirs: [], ours: [] };
    for (const [client, into] of [
      [pair.sdkClient, seen.theirs],
      [pair.myClient, seen.ours],
    ] as const) {
      for (const step of ['initialize', 'deserialize'] as const)
        (client.middlewareStack as { add: (middleware: never, options: object) => void }).add(
          ((next: (args: { input: object }) => Promise<unknown>, context: Record<string, unknown>) =>
            async (args: { input: object }) => {
              into.push({ step, client: context.clientName, command: context.commandName, input: args.input });
              return next(args);
            }) as never,
          { step, name: `watch-${step}` },
        );
    }
    for (const { name, input, answer } of CASES) {
      pair.ours.answers.push({ status: 200, body: JSON.stringify(answer) });
      pair.theirs.answers.push({ status: 200, body: JSON.stringify(answer) });
      await both(pair, name, input);
    }
    expect(seen.ours).toEqual(seen.theirs);
    expect(seen.ours[0]).toMatchObject({ client: 'SQSClient', command: 'SendMessageCommand' });

    const stopping = new AbortController();
    await pair.myClient.send(new mine.DeleteMessageCommand({ QueueUrl: QUEUE, ReceiptHandle: 'r' }), {
      abortSignal: stopping.signal,
    });
    expect(pair.ours.options.at(-1)).toEqual({ abortSignal: stopping.signal });
  });
});

describe('the local runtime', () => {
  it('applies its lean middlewares to the client: unsigned, no signing middleware, once', async () => {
    const pair = clients();
    const stop = leanClients();
    try {
      observed('sqs', pair.myClient);
      leanClients()();
      await pair.myClient.send(new mine.DeleteMessageCommand({ QueueUrl: QUEUE, ReceiptHandle: 'r' }));
      expect(pair.ours.requests[0]?.headers.authorization).toMatch(
        /^AWS4-HMAC-SHA256 Credential=local\/\d{8}\/us-east-1\/sqs\/aws4_request, SignedHeaders=host;x-amz-date, Signature=0$/,
      );
      const stack = pair.myClient.middlewareStack.identify();
      expect(stack.filter((entry) => entry.startsWith('storeflowLocalUnsigned'))).toHaveLength(1);
      expect(stack.some((entry) => entry.startsWith('httpSigningMiddleware'))).toBe(false);
    } finally {
      stop();
    }
  });
});
