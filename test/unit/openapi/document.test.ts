/**
 * The OpenAPI document: valid OpenAPI 3.1 (a maintained validator), complete (every catalog HTTP route described, or
 * excluded with a reason), and saying what the API does: the error codes the renderer sends, the duplicate answer, the
 * key header, the webhooks, and request schemas that accept and refuse what the handlers' validators do.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { httpFunctions } from '#shared/catalog/functions.ts';
import { parseGeneralEvent, parseHeadlessEvent } from '#shared/domain/events/envelope.ts';
import { WEBHOOK_TOPICS } from '#shared/domain/webhooks/topics.ts';
import { buildOpenApiDocument, orphanDocs, undocumentedFunctions } from '#shared/http/openapi/document.ts';
import { EXCLUDED_ROUTES } from '#shared/http/openapi/routes/index.ts';

// biome-ignore lint/suspicious/noExplicitAny: the document is plain JSON walked by path; each assertion checks what it reads.
type Json = Record<string, any>;
let doc: Json;

beforeAll(() => {
  doc = buildOpenApiDocument({ servers: { main: 'https://main.example' } });
});

const op = (path: string, method: string): Json => {
  const found = doc.paths[path]?.[method];
  if (!found) throw new Error(`${method} ${path} is not in the document`);
  return found;
};

describe('the document', () => {
  it('is valid OpenAPI 3.1', async () => {
    const validator = new Validator();
    const result = await validator.validate(doc as never);
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 2)).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('describes every HTTP route of the catalog (or excludes it with a reason)', () => {
    expect(
      undocumentedFunctions(),
      'Catalog HTTP routes missing from the OpenAPI registry: add an entry in shared/http/openapi/routes/ (see registry.ts)',
    ).toEqual([]);
    expect(orphanDocs(), 'Registry entries naming no catalog function').toEqual([]);
    expect(() => buildOpenApiDocument({ strict: true })).not.toThrow();
  });

  it('lists each catalog route under its path and method, served by its host', () => {
    for (const fn of httpFunctions()) {
      if (EXCLUDED_ROUTES[fn.name]) continue;
      for (const route of fn.routes) {
        const operation = op(route.path, route.method.toLowerCase());
        expect(operation['x-storeflow-function']).toBe(fn.name);
        expect(operation['x-storeflow-hosts']).toContain(route.host);
      }
    }
  });

  it('names a reason for every exclusion, and only excludes catalog functions', () => {
    const names = new Set(httpFunctions().map((fn) => fn.name));
    for (const [name, reason] of Object.entries(EXCLUDED_ROUTES)) {
      expect(names.has(name), name).toBe(true);
      expect(reason.length).toBeGreaterThan(10);
    }
  });

  it('puts each operation on its host: a known URL as is, the others as the spec placeholders', () => {
    expect(op('/api/v1/events', 'post').servers.map((s: Json) => s.url)).toEqual(['https://main.example']);
    expect(op('/api/v1/audience', 'get').servers.map((s: Json) => s.url)).toEqual(['{front_url}', '{front_test_url}']);
    const served = op('/api/v1/openapi.json', 'get');
    expect(served['x-storeflow-hosts']).toEqual(['main', 'front', 'sending']);
    expect(served.security).toEqual([]);
  });

  it('declares the store key header as the security scheme for every keyed operation', () => {
    expect(doc.components.securitySchemes.storeKey).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'X-Service-Access-Token',
    });
    expect(doc.security).toEqual([{ storeKey: [] }]);
    expect(op('/api/v1/webhooks', 'post').security).toBeUndefined();
    expect(op('/api/v1/webhooks', 'post').responses['401']).toBeDefined();
  });
});

describe('answers and errors', () => {
  it("documents the spec's error codes per interface as the renderer sends them", () => {
    expect(Object.keys(op('/api/v1/events', 'post').responses)).toEqual(
      expect.arrayContaining(['200', '401', '412', '413', '429', '500']),
    );
    expect(op('/api/v1/events', 'post').responses['400']).toBeUndefined();
    expect(Object.keys(op('/api/v1/webhooks', 'post').responses)).toEqual(
      expect.arrayContaining(['200', '400', '401', '429']),
    );
    expect(Object.keys(op('/api/v1/audience', 'get').responses)).toEqual(
      expect.arrayContaining(['200', '400', '401', '429', '500']),
    );
    expect(
      op('/api/v1/webhooks', 'post').responses['400'].content['application/json'].examples.validation.value,
    ).toEqual({ code: 400, message: 'Topic noneffective' });
    expect(op('/api/v1/headless/events', 'post').responses['412'].content['application/json'].schema).toMatchObject({
      properties: { success: { const: false }, code: { const: 412 } },
    });
    expect(op('/api/v1/audience', 'get').responses['429'].headers['Retry-After']).toBeDefined();
  });

  it('shows the duplicate answer (code 304) under HTTP 200', () => {
    const ok = op('/api/v1/events', 'post').responses['200'].content['application/json'];
    expect(ok.examples.duplicate.value).toEqual({ code: 304, message: 'SourceId already exist' });
    expect(ok.schema.oneOf.map((s: Json) => s.properties.code.const)).toEqual([200, 304]);
    const headless = op('/api/v1/headless/events', 'post').responses['200'].content['application/json'];
    expect(headless.examples.duplicate.value).toEqual({ success: false, code: 304, message: 'SourceId already exist' });
  });

  it('carries the error table of every interface in the description', () => {
    expect(doc.info.description).toContain('| events | 412 |');
    expect(doc.info.description).toContain('| webhooks | 400 |');
    expect(doc.info.description).toContain('| export | 429 |');
  });
});

describe('webhooks', () => {
  it('describes every topic with the signature header', () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([...WEBHOOK_TOPICS].sort());
    for (const topic of WEBHOOK_TOPICS) {
      const post = doc.webhooks[topic].post;
      expect(post.parameters).toContainEqual(
        expect.objectContaining({ name: 'X-Service-hmac-sha256', in: 'header', required: true }),
      );
      expect(post.responses['200']).toBeDefined();
    }
  });

  it('describes both customer/marketing formats and the five email event types', () => {
    const marketing = doc.webhooks['customer/marketing'].post.requestBody.content['application/json'].schema;
    expect(marketing.oneOf).toHaveLength(2);
    const callback = doc.webhooks['transmission/callback'].post.requestBody.content['application/json'].schema;
    expect(Object.keys(callback.discriminator.mapping).sort()).toEqual(
      ['bounce', 'click', 'delivery', 'initial_open', 'list_unsubscribe'].sort(),
    );
  });
});

describe('request schemas agree with the validators', () => {
  const compiled = new Map<string, ReturnType<Ajv2020['compile']>>();
  const compile = (path: string) => {
    let validate = compiled.get(path);
    if (!validate) {
      const ajv = new Ajv2020({ strict: false, validateFormats: false });
      ajv.addSchema({ $id: 'doc', components: doc.components });
      const schema = op(path, 'post').requestBody.content['application/json'].schema;
      validate = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/', '"doc#/')));
      compiled.set(path, validate);
    }
    return validate;
  };
  const accepts = (parse: (body: unknown) => unknown, body: unknown) => {
    try {
      parse(body);
      return true;
    } catch {
      return false;
    }
  };

  const customer = { id: 'c1', email: 'ada@example.com', created_at: 1_700_000_000 };
  const general: [string, unknown][] = [
    ['a customer', { endpoint: 'customers/create', source_id: 's1', data: customer }],
    ['a numeric customer id', { endpoint: 'customers', source_id: 's1', data: { ...customer, id: 42 } }],
    ['a 51-character source_id', { endpoint: 'customers/create', source_id: 'x'.repeat(51), data: customer }],
    [
      'no email on customers/create',
      { endpoint: 'customers/create', source_id: 's1', data: { id: 'c1', created_at: 1 } },
    ],
    ['an update with only the id', { endpoint: 'customers/update', source_id: 's1', data: { id: 'c1' } }],
    ['an unknown endpoint', { endpoint: 'customers/delete', source_id: 's1', data: { id: 'c1' } }],
    ['a cart with neither token nor id', { endpoint: 'carts/create', source_id: 's1', data: { email: 'a@b.co' } }],
    ['a cart with a token', { endpoint: 'carts', source_id: 's1', data: { token: 't1', line_items: [] } }],
    ['an order without lines', { endpoint: 'orders/paid', source_id: 's1', data: { ...customer, line_items: [] } }],
    ['a restock', { endpoint: 'products/restock', source_id: 's1', data: { product_id: 'p1' } }],
    [
      'a back-in-stock without email or phone',
      { endpoint: 'products/back_in_stock', source_id: 's', data: { product_id: 'p' } },
    ],
    [
      'ignore_flow other than Y/N',
      { endpoint: 'products/restock', source_id: 's1', data: { product_id: 'p1', ignore_flow: 'yes' } },
    ],
    ['data as an array', { endpoint: 'products/restock', source_id: 's1', data: [] }],
  ];

  it.each(general)('general interface: %s', (_name, body) => {
    expect(compile('/api/v1/events')(body)).toBe(accepts(parseGeneralEvent, body));
  });

  const page = { requestId: 'r1', type: 'page', page: { url: 'https://s.example/p', title: 'P' } };
  const headless: [string, unknown][] = [
    [
      'a product page view',
      {
        endpoint: 'page/viewed',
        source_id: 's',
        data: { ...page, includeProduct: 1, page: { ...page.page, productId: 'p1' } },
      },
    ],
    [
      'a product page without its product',
      { endpoint: 'page/viewed', source_id: 's', data: { ...page, includeProduct: 1 } },
    ],
    ['another page', { endpoint: 'page/viewed', source_id: 's', data: { ...page, includeProduct: 0 } }],
    [
      'a subscriber by phone',
      { endpoint: 'customers/create', source_id: 's', data: { id: 'c', created_at: 1, phone: '+15550100' } },
    ],
    ['a subscriber with neither', { endpoint: 'customers/create', source_id: 's', data: { id: 'c', created_at: 1 } }],
    ['a general-only endpoint', { endpoint: 'orders/paid', source_id: 's', data: { id: 'o' } }],
  ];

  it.each(headless)('headless interface: %s', (_name, body) => {
    expect(compile('/api/v1/headless/events')(body)).toBe(accepts(parseHeadlessEvent, body));
  });
});
