/**
 * The service's S3, SESv2 and Scheduler clients (shared/adapters/s3/client.ts, shared/adapters/ses/client.ts,
 * shared/adapters/scheduler/client.ts), built from the
 * SDK's parts (shared/adapters/signed-client.ts) instead of the SDK's clients (cold starts): they must sign
 * and presign as the SDK does, and answer and fail as the SDK's clients did.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { CreateScheduleCommand, SchedulerClient, UpdateScheduleCommand } from '@aws-sdk/client-scheduler';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { getObject, headObject, putObject, S3 } from '#shared/adapters/s3/client.ts';
import { createSchedule, scheduler, updateSchedule } from '#shared/adapters/scheduler/client.ts';
import { getEmailIdentity, sendEmail, ses } from '#shared/adapters/ses/client.ts';

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

let server: Server;
let url: string;
const seen: Seen[] = [];
/** What the server answers next (one per request, in order; then 200 with no body). */
const answers: { status: number; body?: string; headers?: Record<string, string> }[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      seen.push({
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString(),
      });
      const answer = answers.shift() ?? { status: 200 };
      response.writeHead(answer.status, answer.headers ?? {});
      response.end(request.method === 'HEAD' ? undefined : answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
afterEach(() => {
  vi.unstubAllEnvs();
  seen.length = 0;
  answers.length = 0;
});

const client = (endpoint: string | undefined, forcePathStyle = true) => {
  vi.stubEnv('AWS_REGION', 'us-east-1');
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDEXAMPLE');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'secret');
  vi.stubEnv('AWS_SESSION_TOKEN', 'token');
  vi.stubEnv('AWS_ENDPOINT_URL', undefined);
  vi.stubEnv('AWS_ENDPOINT_URL_S3', endpoint);
  return new S3({ forcePathStyle });
};

/** A process-wide client, sent to the test server (built on first use, so the variables are read then). */
const toTestServer = <C>(endpointId: string, client: () => C): C => {
  vi.stubEnv('AWS_REGION', 'us-east-1');
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDEXAMPLE');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'secret');
  vi.stubEnv(`AWS_ENDPOINT_URL_${endpointId}`, url);
  return client();
};
const sesClient = () => toTestServer('SESV2', ses);

const ADDRESS = { Bucket: 'storeflow-imports', Key: 'imports/st_1/a b+c.jsonl' };

describe('the S3 client', () => {
  it('puts an object signed with its payload hash, path-style, with the content type', async () => {
    await client(url).send(putObject({ ...ADDRESS, Body: 'héllo\n', ContentType: 'application/x-ndjson' }));
    expect(seen).toHaveLength(1);
    const [put] = seen;
    expect(put).toMatchObject({
      method: 'PUT',
      url: '/storeflow-imports/imports/st_1/a%20b%2Bc.jsonl',
      body: 'héllo\n',
    });
    expect(put?.headers).toMatchObject({
      'content-type': 'application/x-ndjson',
      'content-length': String(Buffer.byteLength('héllo\n')),
      'x-amz-content-sha256': createHash('sha256').update('héllo\n').digest('hex'),
      'x-amz-security-token': 'token',
    });
    expect(put?.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/us-east-1\/s3\/aws4_request, SignedHeaders=[^,]*content-length;content-type;host;[^,]*x-amz-content-sha256;x-amz-date[^,]*, Signature=[0-9a-f]{64}$/,
    );
  });

  it('reads a range of an object as a stream, and its size', async () => {
    const s3 = client(url);
    answers.push({ status: 206, body: 'line 2\nline 3\n', headers: { 'content-length': '14' } });
    const got = await s3.send(getObject({ ...ADDRESS, Range: 'bytes=7-' }));
    const chunks: Uint8Array[] = [];
    for await (const chunk of got.Body ?? []) chunks.push(chunk);
    expect(Buffer.concat(chunks).toString()).toBe('line 2\nline 3\n');
    expect(seen[0]?.headers.range).toBe('bytes=7-');
    answers.push({ status: 200, headers: { 'content-length': '21' } });
    expect((await s3.send(headObject(ADDRESS))).ContentLength).toBe(21);
  });

  it("names errors as the SDK does: S3's XML code, or the status of a bodiless answer", async () => {
    const s3 = client(url);
    answers.push({ status: 404 });
    await expect(s3.send(headObject(ADDRESS))).rejects.toMatchObject({
      name: 'NotFound',
      $fault: 'client',
      $metadata: { httpStatusCode: 404 },
    });
    answers.push({
      status: 416,
      body: '<?xml version="1.0"?><Error><Code>InvalidRange</Code><Message>The requested range is not satisfiable</Message></Error>',
    });
    await expect(s3.send(getObject({ ...ADDRESS, Range: 'bytes=99-' }))).rejects.toMatchObject({
      name: 'InvalidRange',
      message: 'The requested range is not satisfiable',
    });
    answers.push({ status: 403, body: '<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>' });
    await expect(s3.send(putObject({ ...ADDRESS, Body: 'x' }))).rejects.toMatchObject({ name: 'AccessDenied' });
    // Client errors are not retried.
    expect(seen).toHaveLength(3);
  });

  it('retries a server error as the SDK does', async () => {
    const s3 = client(url);
    answers.push({
      status: 503,
      body: '<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>',
    });
    await s3.send(putObject({ ...ADDRESS, Body: 'x' }));
    expect(seen.map((request) => request.method)).toEqual(['PUT', 'PUT']);
    expect(seen[1]?.headers['amz-sdk-request']).toMatch(/^attempt=2; max=\d$/);
  });

  it('presigns GET and PUT URLs with the signature the SDK presigner gives the same request', async () => {
    const fixed = new Date('2027-01-15T08:00:00Z');
    vi.useFakeTimers({ now: fixed, toFake: ['Date'] });
    try {
      for (const forcePathStyle of [false, true]) {
        const mine = client(undefined, forcePathStyle);
        const sdk = new S3Client({ forcePathStyle, requestChecksumCalculation: 'WHEN_REQUIRED' });
        // The SDK adds `x-id` and, for a GET, `x-amz-checksum-mode`: parameters this client does not send.
        sdk.middlewareStack.add(
          (next) => async (args) => {
            const request = args.request as { query: Record<string, unknown>; headers: Record<string, unknown> };
            delete request.query['x-id'];
            delete request.headers['x-amz-checksum-mode'];
            return next(args);
          },
          { step: 'build', name: 'withoutSdkOnlyParameters' },
        );
        expect(await mine.presign('GET', ADDRESS, { expiresIn: 300 })).toBe(
          await getSignedUrl(sdk, new GetObjectCommand(ADDRESS), { expiresIn: 300 }),
        );
        const put = await mine.presign('PUT', ADDRESS, { expiresIn: 900, headers: { 'content-length': '12345' } });
        expect(put).toBe(
          await getSignedUrl(sdk, new PutObjectCommand({ ...ADDRESS, ContentLength: 12345 }), {
            expiresIn: 900,
            signableHeaders: new Set(['content-length']),
          }),
        );
        expect(put).toContain('X-Amz-SignedHeaders=content-length%3Bhost');
        // No checksum of an empty body (what the SDK's default would sign in, and S3 refuse for a real file).
        expect(put).not.toMatch(/checksum/i);
        expect(new URL(put).hostname).toBe(
          forcePathStyle ? 's3.us-east-1.amazonaws.com' : 'storeflow-imports.s3.us-east-1.amazonaws.com',
        );
      }
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('the SESv2 client', () => {
  it('posts the command input as JSON, signed for ses, and reads the JSON answer', async () => {
    answers.push({ status: 200, body: '{"MessageId":"m-1"}', headers: { 'content-type': 'application/json' } });
    const input = {
      FromEmailAddress: 'shop@mail.example',
      Destination: { ToAddresses: ['ana@example.com'] },
      Content: { Simple: { Subject: { Data: 'Hi' }, Body: { Text: { Data: 'Hello' } } } },
    };
    expect(await sesClient().send(sendEmail(input))).toMatchObject({ MessageId: 'm-1' });
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/v2/email/outbound-emails' });
    expect(JSON.parse(seen[0]?.body ?? '')).toEqual(input);
    expect(seen[0]?.headers.authorization).toMatch(/Credential=AKIDEXAMPLE\/\d{8}\/us-east-1\/ses\/aws4_request/);
  });

  it('names errors as the SDK does: the x-amzn-errortype header, else the body type, without namespace', async () => {
    answers.push({
      status: 400,
      body: '{"message":"Email address is not verified."}',
      headers: { 'x-amzn-errortype': 'MessageRejected:http://internal.amazon.com/coral/com.amazon.ses/' },
    });
    await expect(sesClient().send(sendEmail({ Content: {} }))).rejects.toMatchObject({
      name: 'MessageRejected',
      message: 'Email address is not verified.',
      $metadata: { httpStatusCode: 400 },
    });
    answers.push({
      status: 404,
      body: '{"__type":"com.amazonaws.sesv2#NotFoundException","Message":"No identity"}',
    });
    await expect(sesClient().send(getEmailIdentity({ EmailIdentity: 'mail.example' }))).rejects.toMatchObject({
      name: 'NotFoundException',
      message: 'No identity',
    });
    expect(seen[1]).toMatchObject({ method: 'GET', url: '/v2/email/identities/mail.example' });
  });
});

describe('the Scheduler client', () => {
  const schedulerClient = () => toTestServer('SCHEDULER', scheduler);
  const INPUT = {
    Name: 'cart-st_1-tok.1',
    GroupName: 'storeflow-timers',
    ScheduleExpression: 'at(2026-11-28T10:00:00)',
    ScheduleExpressionTimezone: 'UTC',
    FlexibleTimeWindow: { Mode: 'OFF' as const },
    ActionAfterCompletion: 'DELETE' as const,
    Target: {
      Arn: 'arn:aws:sqs:us-east-1:000000000000:timers',
      RoleArn: 'arn:aws:iam::000000000000:role/scheduler',
      Input: '{"v":1,"kind":"cart"}',
      RetryPolicy: { MaximumEventAgeInSeconds: 86_400, MaximumRetryAttempts: 185 },
      DeadLetterConfig: { Arn: 'arn:aws:sqs:us-east-1:000000000000:timers-dlq' },
    },
  };

  it('creates and updates as the SDK does: method, path, JSON body with an idempotency token, signed for scheduler', async () => {
    const sdk = new SchedulerClient({
      endpoint: url,
      region: 'us-east-1',
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
    });
    for (const [ours, theirs] of [
      [createSchedule(INPUT), new CreateScheduleCommand(INPUT)],
      [updateSchedule(INPUT), new UpdateScheduleCommand(INPUT)],
    ] as const) {
      answers.push({ status: 200, body: '{"ScheduleArn":"arn:s"}', headers: { 'content-type': 'application/json' } });
      answers.push({ status: 200, body: '{"ScheduleArn":"arn:s"}', headers: { 'content-type': 'application/json' } });
      expect(await schedulerClient().send(ours as never)).toMatchObject({ ScheduleArn: 'arn:s' });
      await sdk.send(theirs as never);
      const [mine, sdks] = seen.splice(0, 2) as [Seen, Seen];
      expect({ method: mine.method, url: mine.url }).toEqual({ method: sdks.method, url: sdks.url });
      expect(mine.headers['content-type']).toBe(sdks.headers['content-type']);
      const { ClientToken: token, ...body } = JSON.parse(mine.body) as Record<string, unknown>;
      const { ClientToken: sdkToken, ...sdkBody } = JSON.parse(sdks.body) as Record<string, unknown>;
      expect(body).toEqual(sdkBody);
      expect(token).toMatch(/^[0-9a-f-]{36}$/);
      expect(sdkToken).toMatch(/^[0-9a-f-]{36}$/);
      expect(mine.headers.authorization).toMatch(/Credential=AKIDEXAMPLE\/\d{8}\/us-east-1\/scheduler\/aws4_request/);
    }
    sdk.destroy();
  });

  it('names errors as the SDK does (the fallbacks of schedulerTimers read them)', async () => {
    answers.push({
      status: 404,
      body: '{"Message":"Schedule cart-st_1-tok.1 does not exist."}',
      headers: { 'x-amzn-errortype': 'ResourceNotFoundException' },
    });
    await expect(schedulerClient().send(updateSchedule(INPUT))).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
      message: 'Schedule cart-st_1-tok.1 does not exist.',
      $metadata: { httpStatusCode: 404 },
    });
    answers.push({ status: 409, body: '{"Message":"exists"}', headers: { 'x-amzn-errortype': 'ConflictException' } });
    await expect(schedulerClient().send(createSchedule(INPUT))).rejects.toMatchObject({ name: 'ConflictException' });
  });
});
