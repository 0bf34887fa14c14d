/**
 * Invalid UTF-8: a JSON string holding the raw bytes C3 28 FF was answered 200 on both event interfaces and
 * exported as replacement characters. A body that is not UTF-8 is not JSON (RFC 8259 §8.1): every route that takes a
 * JSON body answers its interface's validation error and stores nothing.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalRuntime } from '#local/runtime.ts';
import { httpFunctions } from '#shared/catalog/functions.ts';
import { newStore, startRuntime, type TestStore } from '#test/support/harness.ts';

let runtime: LocalRuntime;
let store: TestStore;

beforeAll(async () => {
  runtime = await startRuntime();
  store = await newStore('UTF-8');
});

afterAll(async () => {
  await runtime?.stop();
});

/** A `customers/create` event whose `first_name` is `name`, as bytes. */
const eventBody = (sourceId: string, name: Buffer) =>
  Buffer.concat([
    Buffer.from(`{"endpoint":"customers/create","source_id":"${sourceId}","data":{"id":"c1","email":"a@b.example",`),
    Buffer.from('"created_at":1700000000,"first_name":"'),
    name,
    Buffer.from('"}}'),
  ]);

/** The raw bytes C3 28 FF: an invalid two-byte sequence, then a byte UTF-8 never uses. */
const invalidBody = (sourceId: string) => eventBody(sourceId, Buffer.from([0xc3, 0x28, 0xff]));

const post = (url: string, method: string, body: Buffer) =>
  fetch(url, {
    method,
    headers: { 'content-type': 'application/json', 'x-service-access-token': store.apiKey },
    body,
  });

/** Every catalog route whose API description takes a JSON body, with its path parameters filled in. */
const jsonRoutes = (): { name: string; method: string; host: string; path: string }[] => {
  const doc = JSON.parse(readFileSync('docs/openapi.json', 'utf8')) as {
    paths: Record<string, Record<string, { requestBody?: { content?: Record<string, unknown> } }>>;
  };
  const routes: { name: string; method: string; host: string; path: string }[] = [];
  for (const fn of httpFunctions()) {
    for (const route of fn.routes) {
      const operation = doc.paths[route.path]?.[route.method.toLowerCase()];
      if (!operation?.requestBody?.content?.['application/json']) continue;
      routes.push({
        name: fn.name,
        method: route.method,
        host: route.host,
        path: route.path.replace(/\{[^}]+\}/g, 'x'),
      });
    }
  }
  return routes;
};

describe('a body that is not valid UTF-8', () => {
  it('is refused with 412 on both event interfaces, and nothing is stored', async () => {
    const general = await post(`${runtime.urls.main}/api/v1/events`, 'POST', invalidBody('utf8-general'));
    expect(general.status).toBe(412);
    expect(await general.json()).toEqual({
      code: 412,
      message: 'body is not valid UTF-8 (JSON text must be UTF-8)',
    });
    const headless = await post(`${runtime.urls.front}/api/v1/headless/events`, 'POST', invalidBody('utf8-headless'));
    expect(headless.status).toBe(412);
    expect((await headless.json()) as { message: string }).toMatchObject({ success: false, code: 412 });

    // Not recorded either: the same source_id with a valid body is accepted as new.
    const valid = await post(
      `${runtime.urls.main}/api/v1/events`,
      'POST',
      eventBody('utf8-general', Buffer.from('Ada')),
    );
    expect(await valid.json()).toEqual({ code: 200, message: 'ok' });
  });

  it('is refused with the validation error on every route that takes a JSON body', async () => {
    const routes = jsonRoutes();
    expect(routes.length).toBeGreaterThanOrEqual(8);
    for (const route of routes) {
      const answer = await post(`${runtime.urls[route.host as 'main']}${route.path}`, route.method, invalidBody('r'));
      const text = await answer.text();
      expect([400, 412], `${route.name}: ${answer.status} ${text}`).toContain(answer.status);
      expect(text, route.name).toContain('UTF-8');
    }
  });

  it('is refused in an import file (400), storing nothing', async () => {
    const form = new FormData();
    form.append('dataFile', new Blob([eventBody('utf8-import', Buffer.from([0xc3, 0x28, 0xff]))]), 'contacts.jsonl');
    const answer = await fetch(`${runtime.urls.main}/api/v1/batch/customers?append=update`, {
      method: 'POST',
      headers: { 'x-service-access-token': store.apiKey },
      body: form,
    });
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({ message: 'dataFile is not valid UTF-8 (JSONL is UTF-8 text)' });
  });
});
