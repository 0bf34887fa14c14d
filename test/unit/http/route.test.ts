/**
 * The HTTP wrapper without the runtime: a public route (no store key, so no table) called with API Gateway events.
 * What every route inherits: the body reader's refusals, the path and query read through their schemas, and errors
 * rendered in the interface's shape, never a 500 for bad input.
 */
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { webhooksReply } from '#shared/http/responses.ts';
import { httpRoute } from '#shared/http/route.ts';
import { FlowPath, FlowRunsQuery } from '#shared/http/route-inputs.ts';
import { apiEvent, lambdaContext } from '#test/support/events.ts';

const Body = v.object({ name: v.pipe(v.string(), v.minLength(1, 'must not be empty')) });

const echo = httpRoute({
  api: 'webhooks',
  auth: 'none',
  path: FlowPath,
  query: FlowRunsQuery,
  body: Body,
  maxBodyBytes: 256,
  handle: async ({ body, path, query }) => webhooksReply.ok({ name: body.name, flowId: path.flowId, ...query }),
});

const call = async (event: Parameters<typeof echo>[0]) => {
  const result = await echo(event, lambdaContext());
  return { status: result.statusCode, body: JSON.parse(String(result.body)) as Record<string, unknown> };
};

const post = (body: unknown, headers?: Record<string, string>) =>
  apiEvent({
    method: 'PUT',
    path: '/api/v1/flows/fl_1',
    pathParameters: { flowId: 'fl_1' },
    query: { limit: '5' },
    body,
    headers: { 'content-type': 'application/json', ...headers },
  });

describe('httpRoute', () => {
  it('hands the handler the body, path and query as their schemas read them', async () => {
    expect(await call(post({ name: 'Ada' }))).toEqual({
      status: 200,
      body: { code: 200, data: { name: 'Ada', flowId: 'fl_1', limit: 5 } },
    });
  });

  it('answers a body its schema refuses with 400 naming the field and the rule', async () => {
    const answer = await call(post({ name: '' }));
    expect(answer.status).toBe(400);
    expect(answer.body.message).toBe('name must not be empty');
  });

  it('refuses a body that is not JSON, is not declared JSON, or is too large, before the handler', async () => {
    expect((await call(post('{"name":'))).body.message).toBe('body is not valid JSON');
    expect((await call(post('{"name":"Ada"}', { 'content-type': 'text/plain' }))).body.message).toBe(
      'Content-Type must be application/json',
    );
    const large = await call(post({ name: 'x'.repeat(300) }));
    expect(large.status).toBe(413);
  });

  it('refuses a __proto__ key and numbers JavaScript cannot keep exactly', async () => {
    expect((await call(post('{"name":"Ada","__proto__":{}}'))).body.message).toBe('the key "__proto__" is not allowed');
    expect((await call(post('{"name":"Ada","n":9007199254740993}'))).status).toBe(400);
  });
});

describe('httpRoute near its time limit', () => {
  const slow = httpRoute({
    api: 'webhooks',
    auth: 'none',
    handle: () => new Promise<never>(() => undefined),
  });

  it('answers 503 "retry" (not a 500) when the handler outlives the invocation, as under overload', async () => {
    const context = { ...lambdaContext(), getRemainingTimeInMillis: () => 50 };
    const result = await slow(apiEvent({ method: 'GET', path: '/api/v1/webhooks' }), context);
    expect(result.statusCode).toBe(503);
    expect(JSON.parse(String(result.body))).toEqual({ code: 503, message: expect.stringContaining('retry') });
  });
});

describe('httpRoute with an HTML form body', () => {
  const form = httpRoute({
    api: 'webhooks',
    auth: 'none',
    form: true,
    body: v.object({ subject: v.optional(v.string()), action: v.optional(v.picklist(['preview', 'save'])) }),
    maxBodyBytes: 256,
    handle: async ({ body }) => webhooksReply.ok(body),
  });
  const send = async (method: string, body?: string, contentType = 'application/x-www-form-urlencoded') => {
    const result = await form(
      apiEvent({
        method,
        path: '/form',
        ...(body !== undefined ? { body } : {}),
        headers: { 'content-type': contentType },
      }),
      lambdaContext(),
    );
    return { status: result.statusCode, body: JSON.parse(String(result.body)) as Record<string, unknown> };
  };

  it('reads the fields (the first of a repeated name, any UTF-8), and a GET as a form not filled in yet', async () => {
    const posted = await send('POST', 'subject=Hello%2C+%C3%A9l%C3%A8ve+%7B%7B+x+%7D%7D&action=save&subject=second');
    expect(posted.status).toBe(200);
    expect(posted.body.data).toEqual({ subject: 'Hello, élève {{ x }}', action: 'save' });
    expect((await send('GET')).body.data).toEqual({});
  });

  it('refuses another content type, a field its schema refuses, and a body over the limit', async () => {
    expect((await send('POST', '{"subject":"x"}', 'application/json')).body.message).toBe(
      'Content-Type must be application/x-www-form-urlencoded',
    );
    expect((await send('POST', 'action=delete')).status).toBe(400);
    expect((await send('POST', `subject=${'x'.repeat(300)}`)).status).toBe(413);
  });
});
