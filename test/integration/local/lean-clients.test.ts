/**
 * The local runtime's clients send what the emulators read and nothing only AWS reads (`local/lean-clients.ts`): an
 * unsigned but well-formed `Authorization` header, no user agent, no recursion-detection header. The requests are
 * captured by a request handler of the test's own, so what is asserted is what would go over the wire.
 */
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DROPPED_MIDDLEWARES, leanClients } from '#local/lean-clients.ts';
import { observed } from '#shared/adapters/client-observers.ts';

interface Captured {
  readonly headers: Record<string, string>;
}

/** An SQS client whose requests stop at a handler that records them and answers a sent message. */
const capturingClient = (captured: Captured[]) =>
  new SQSClient({
    region: 'us-east-1',
    endpoint: 'http://127.0.0.1:1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    requestHandler: {
      async handle(request: Captured) {
        captured.push({ headers: { ...request.headers } });
        const body = JSON.stringify({ MessageId: 'm-1', MD5OfMessageBody: '5d41402abc4b2a76b9719d911017c592' });
        return {
          response: {
            statusCode: 200,
            headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'r-1' },
            body: Buffer.from(body),
          },
        };
      },
    } as never,
  });

const send = (client: SQSClient) =>
  client.send(new SendMessageCommand({ QueueUrl: 'http://127.0.0.1:1/000000000000/q', MessageBody: 'hello' }));

const lowerCased = (headers: Record<string, string>) =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));

describe('the local runtime’s lean SDK clients', () => {
  const env = { ...process.env };
  beforeAll(() => {
    // Inside a Lambda with a trace id, the recursion-detection middleware would add `X-Amzn-Trace-Id`.
    process.env.AWS_LAMBDA_FUNCTION_NAME = 'ingest-worker';
    process.env._X_AMZN_TRACE_ID = 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1';
  });
  afterAll(() => {
    process.env = env;
  });

  let stop: (() => void) | undefined;
  afterEach(() => stop?.());

  it('a client as the SDK makes it signs and names itself (what the lean clients drop)', async () => {
    const captured: Captured[] = [];
    await send(capturingClient(captured));
    const headers = lowerCased(captured[0]?.headers ?? {});
    expect(headers.authorization).toMatch(/Signature=[0-9a-f]{64}$/);
    expect(headers['x-amz-user-agent']).toBeDefined();
    expect(headers['x-amzn-trace-id']).toBeDefined();
  });

  it('sends an unsigned Authorization header with the credential scope, and no user agent or trace header', async () => {
    stop = leanClients();
    const captured: Captured[] = [];
    const client = observed('sqs', capturingClient(captured));
    const answer = await send(client);
    expect(answer.MessageId).toBe('m-1');
    const headers = lowerCased(captured[0]?.headers ?? {});
    expect(headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=local\/\d{8}\/us-east-1\/sqs\/aws4_request, SignedHeaders=host;x-amz-date, Signature=0$/,
    );
    expect(headers['x-amz-date']).toMatch(/^\d{8}T\d{6}Z$/);
    expect(headers['x-amz-user-agent']).toBeUndefined();
    expect(headers['user-agent']).toBeUndefined();
    expect(headers['x-amzn-trace-id']).toBeUndefined();
    const stack = (client.middlewareStack as { identify(): string[] }).identify().join(' ');
    for (const name of DROPPED_MIDDLEWARES) expect(stack).not.toContain(name);
  });

  it('applies to a client made before the runtime started, once however often it is applied', async () => {
    const captured: Captured[] = [];
    const client = observed('sqs', capturingClient(captured));
    stop = leanClients();
    const again = leanClients();
    await send(client);
    again();
    const headers = lowerCased(captured[0]?.headers ?? {});
    expect(headers.authorization).toMatch(/Signature=0$/);
    expect(headers['x-amz-user-agent']).toBeUndefined();
    const stack = (client.middlewareStack as { identify(): string[] }).identify();
    expect(stack.filter((entry) => entry.startsWith('storeflowLocalUnsigned'))).toHaveLength(1);
  });
});
