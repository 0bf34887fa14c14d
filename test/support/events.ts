/**
 * Lambda events as API Gateway (HTTP API, payload 2.0) and SQS hand them to a handler, for tests that call a handler or
 * a wrapper directly, without the local runtime.
 */
import type { APIGatewayProxyEventV2, Context, SQSEvent, SQSRecord } from 'aws-lambda';

export interface ApiEventOptions {
  readonly method?: string;
  readonly path?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** A string is sent as is; anything else as JSON (with `content-type: application/json` unless a header says otherwise). */
  readonly body?: unknown;
  readonly query?: Readonly<Record<string, string>>;
  readonly pathParameters?: Readonly<Record<string, string>>;
}

export const apiEvent = (options: ApiEventOptions = {}): APIGatewayProxyEventV2 => {
  const method = options.method ?? 'GET';
  const path = options.path ?? '/';
  const json = options.body !== undefined && typeof options.body !== 'string';
  const headers: Record<string, string> = {
    host: 'main.example',
    ...(json ? { 'content-type': 'application/json' } : {}),
    ...options.headers,
  };
  const query = options.query ?? {};
  return {
    version: '2.0',
    routeKey: `${method} ${path}`,
    rawPath: path,
    rawQueryString: new URLSearchParams(query).toString(),
    headers,
    ...(Object.keys(query).length > 0 ? { queryStringParameters: { ...query } } : {}),
    ...(options.pathParameters ? { pathParameters: { ...options.pathParameters } } : {}),
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: headers.host ?? 'main.example',
      domainPrefix: 'main',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'test' },
      requestId: `req-${Math.random().toString(36).slice(2)}`,
      routeKey: `${method} ${path}`,
      stage: '$default',
      time: new Date(0).toISOString(),
      timeEpoch: 0,
    },
    ...(options.body !== undefined ? { body: json ? JSON.stringify(options.body) : (options.body as string) } : {}),
    isBase64Encoded: false,
  };
};

export interface SqsEventOptions {
  readonly fifo?: boolean;
  /** FIFO message group of every record (default `g1`). */
  readonly groupId?: string;
  /** FIFO message group of each record by position (over `groupId`). */
  readonly groupIds?: readonly string[];
  /** `ApproximateReceiveCount` of every record (default 1). */
  readonly receiveCount?: number;
}

/** One record per body (objects are sent as JSON), ids `m1`, `m2`, … in order. */
export const sqsEvent = (bodies: readonly unknown[], options: SqsEventOptions = {}): SQSEvent => ({
  Records: bodies.map(
    (body, i): SQSRecord => ({
      messageId: `m${i + 1}`,
      receiptHandle: `rh-${i + 1}`,
      body: typeof body === 'string' ? body : JSON.stringify(body),
      attributes: {
        ApproximateReceiveCount: String(options.receiveCount ?? 1),
        SentTimestamp: '0',
        SenderId: 'local',
        ApproximateFirstReceiveTimestamp: '0',
        ...(options.fifo
          ? {
              MessageGroupId: options.groupIds?.[i] ?? options.groupId ?? 'g1',
              MessageDeduplicationId: `d${i + 1}`,
              SequenceNumber: String(i + 1),
            }
          : {}),
      },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: `arn:aws:sqs:us-east-1:000000000000:test${options.fifo ? '.fifo' : ''}`,
      awsRegion: 'us-east-1',
    }),
  ),
});

/** A Lambda context with plenty of time left. */
export const lambdaContext = (name = 'test-function'): Context => ({
  callbackWaitsForEmptyEventLoop: false,
  functionName: name,
  functionVersion: '$LATEST',
  invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${name}`,
  memoryLimitInMB: '256',
  awsRequestId: `aws-${Math.random().toString(36).slice(2)}`,
  logGroupName: `/aws/lambda/${name}`,
  logStreamName: 'test',
  getRemainingTimeInMillis: () => 30_000,
  done: () => undefined,
  fail: () => undefined,
  succeed: () => undefined,
});
