/**
 * For the tests that compare the service's own AWS clients with the SDK's (test/unit/adapters/*-client.test.ts): a
 * request handler that records each request and answers from a list, without any network, and the environment both
 * clients read (fixed region, credentials and endpoint).
 */
import { HttpResponse } from '@smithy/core/transport';
import { expect, vi } from 'vitest';

export interface Captured {
  readonly method: string;
  readonly protocol: string;
  readonly hostname: string;
  readonly port?: number;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: string;
}
export type Answer =
  | { readonly status: number; readonly body: string; readonly headers?: Record<string, string> }
  | Error;

/** A request handler that records each request (and the handler's options) and answers the next of `answers` (then 200 `{}`). */
export const recorder = () => {
  const requests: Captured[] = [];
  const options: unknown[] = [];
  const answers: Answer[] = [];
  const handler = {
    metadata: { handlerProtocol: 'http/1.1' },
    async handle(request: Captured, handlerOptions?: unknown) {
      requests.push({ ...request, headers: { ...request.headers } });
      options.push(handlerOptions);
      const answer = answers.shift() ?? { status: 200, body: '{}' };
      if (answer instanceof Error) throw answer;
      return {
        response: new HttpResponse({
          statusCode: answer.status,
          headers: { 'x-amzn-requestid': 'REQ-1', 'content-type': 'application/x-amz-json-1.0', ...answer.headers },
          body: Buffer.from(answer.body),
        }),
      };
    },
    updateHttpClientConfig() {},
    httpHandlerConfigs: () => ({}),
    destroy() {},
  };
  return { requests, options, answers, handler };
};

/**
 * The environment both clients read: a fixed region and credentials, `endpoint` as `AWS_ENDPOINT_URL_<endpointId>`
 * (null: none, the regional endpoint), no retry settings.
 */
export const stubAwsEnvironment = (endpointId: string, endpoint: string | null) => {
  vi.stubEnv('AWS_REGION', 'eu-west-1');
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDEXAMPLE');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY');
  vi.stubEnv('AWS_SESSION_TOKEN', 'session-token');
  vi.stubEnv('AWS_ENDPOINT_URL', undefined);
  vi.stubEnv(`AWS_ENDPOINT_URL_${endpointId}`, endpoint ?? undefined);
  vi.stubEnv('AWS_MAX_ATTEMPTS', undefined);
  vi.stubEnv('AWS_RETRY_MODE', undefined);
};

interface Stack {
  addRelativeTo(middleware: never, options: { name: string; relation: 'before'; toMiddleware: string }): void;
}

/**
 * Makes the two clients' signed requests comparable header for header: both drop the headers they do not share (the
 * SDK's user agent, each call's random invocation id), and the SDK signs the bytes ours sent (`oursSent`: our
 * recorder's requests). The SDK writes JSON members in its schema's order, ours in the input's: the same JSON (checked
 * here), other bytes, so the signatures then compare the signing alone.
 */
export const signSameBytes = (sdkStack: Stack, myStack: Stack, oursSent: readonly Captured[]) => {
  type Next = (args: { request: Captured }) => Promise<unknown>;
  const unshared = (next: Next) => async (args: { request: Captured }) => {
    delete args.request.headers['amz-sdk-invocation-id'];
    delete args.request.headers['x-amz-user-agent'];
    delete args.request.headers['user-agent'];
    return next(args);
  };
  const before = { name: 'unshared', relation: 'before' as const, toMiddleware: 'httpSigningMiddleware' };
  const sameBytes = (next: Next) => async (args: { request: Captured }) => {
    const sent = oursSent.at(-1)?.body ?? '';
    expect(JSON.parse(sent)).toEqual(JSON.parse(args.request.body));
    return next({ ...args, request: Object.assign(args.request, { body: sent }) });
  };
  sdkStack.addRelativeTo(sameBytes as never, { ...before, name: 'sameBytes' });
  sdkStack.addRelativeTo(unshared as never, before);
  myStack.addRelativeTo(unshared as never, before);
};
