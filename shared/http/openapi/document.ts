/**
 * The OpenAPI 3.1 document of the three hosts, generated from the function catalog (where each route lives) and the
 * registry in `routes/` (what it takes and answers: the handlers' own valibot schemas, the reply renderers). Pure: no
 * AWS, no I/O. `npm run openapi` writes it to docs/openapi.json; each host serves it at `GET /api/v1/openapi.json`.
 */
import * as v from 'valibot';
import type { HttpFunction } from '#shared/catalog/function-spec.ts';
import { httpFunctions } from '#shared/catalog/functions.ts';
import type { Host } from '#shared/catalog/hosts.ts';
import type { ErrorKind } from '#shared/errors.ts';
import type { Reply } from '#shared/http/reply.ts';
import type { ApiInterface } from '#shared/http/responses.ts';
import { namedSchemas } from './components.ts';
import { type JsonSchema, jsonSchemaOf, type SchemaSource } from './json-schema.ts';
import type { BodyDoc, RouteDoc } from './registry.ts';
import { EXCLUDED_ROUTES, ROUTE_DOCS } from './routes/index.ts';
import { ERROR_MEANINGS, errorResponse, exampleOf, internalErrorResponse, replyShape } from './shapes.ts';
import { webhooksSection } from './webhooks.ts';

/** The spec's host placeholders; `frontTest` is the front host of the `test` stage (`{front_test_url}`). */
export type ServerName = Host | 'frontTest';

const SERVERS: Record<ServerName, { variable: string; port: number; description: string }> = {
  main: { variable: 'base_url', port: 3000, description: 'Main host: events, webhooks, OAuth sign-in, batch import' },
  front: { variable: 'front_url', port: 3001, description: 'Front host: headless events, contact export' },
  frontTest: { variable: 'front_test_url', port: 3001, description: 'Front host of the test stage' },
  sending: { variable: 'sending_url', port: 3002, description: 'Sending host: bulk email' },
};

const OUTPUT_OF: Record<ServerName, string> = {
  main: 'MainUrl',
  front: 'FrontUrl',
  frontTest: 'FrontUrl of Storeflow-test-Service',
  sending: 'SendingUrl',
};

export interface DocumentOptions {
  /** Known base URLs (a deployment serving the document); the others stay `{placeholder}` server variables. */
  readonly servers?: Partial<Record<ServerName, string>>;
  /** Throw when a catalog route has no registry entry (the generator script and the tests); else describe it bare. */
  readonly strict?: boolean;
}

const server = (name: ServerName, known: DocumentOptions['servers']) => {
  const spec = SERVERS[name];
  const url = known?.[name];
  if (url) return { url, description: spec.description };
  return {
    url: `{${spec.variable}}`,
    description: spec.description,
    variables: {
      [spec.variable]: {
        default: `http://127.0.0.1:${spec.port}`,
        description: `The ${OUTPUT_OF[name]} output of the deployment (the default is \`npm start\`'s)`,
      },
    },
  };
};

const serversOf = (host: Host, known: DocumentOptions['servers']) =>
  host === 'front' ? [server('front', known), server('frontTest', known)] : [server(host, known)];

const camel = (kebab: string) => kebab.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());

const isBodyDoc = (body: SchemaSource | BodyDoc): body is BodyDoc =>
  typeof body === 'object' && body !== null && 'schema' in body && !('kind' in body);

/** Catalog HTTP functions with no registry entry and no exclusion. */
export const undocumentedFunctions = (): string[] =>
  httpFunctions()
    .map((fn) => fn.name)
    .filter((name) => !ROUTE_DOCS[name] && !EXCLUDED_ROUTES[name]);

/** Registry entries naming no catalog HTTP function (a rename left behind). */
export const orphanDocs = (): string[] => {
  const names = new Set(httpFunctions().map((fn) => fn.name));
  return Object.keys(ROUTE_DOCS).filter((name) => !names.has(name));
};

const JSON_CONTENT = 'application/json';

const successResponse = (doc: RouteDoc) => {
  const data = doc.data === undefined ? undefined : jsonSchemaOf(doc.data);
  const isReply = (ok: RouteDoc['ok']): ok is Reply => 'statusCode' in ok && 'body' in ok;
  const replies: Record<string, Reply> = isReply(doc.ok) ? { ok: doc.ok } : { ...doc.ok };
  const shapes = Object.values(replies).map((reply) => replyShape(reply, data));
  const statuses = new Set(Object.values(replies).map((reply) => reply.statusCode));
  if (statuses.size !== 1) throw new Error('A route documents one success status (several bodies may share it)');
  // Replies without data are fixed texts (the events answers): show them as examples.
  const examples = doc.data
    ? undefined
    : Object.fromEntries(
        Object.entries(replies).map(([name, reply]) => [name, { summary: name, value: exampleOf(reply.body) }]),
      );
  return [
    String([...statuses][0]),
    {
      description: doc.okDescription ?? 'Success',
      ...(doc.okHeaders ? { headers: doc.okHeaders } : {}),
      content: {
        [JSON_CONTENT]: {
          schema: shapes.length === 1 ? shapes[0] : { oneOf: shapes },
          ...(examples ? { examples } : {}),
        },
      },
    },
  ] as const;
};

const errorResponses = (doc: RouteDoc): Record<string, unknown> => {
  if (doc.api === 'none') return {};
  const api: ApiInterface = doc.api;
  const kinds: ErrorKind[] = [...(doc.auth === false ? [] : (['unauthorized'] as const)), ...(doc.errors ?? [])];
  const byStatus = new Map<number, { meanings: string[]; schema: JsonSchema; examples: Record<string, unknown> }>();
  for (const kind of new Set(kinds)) {
    const error = errorResponse(api, kind, doc.errorMessages?.[kind]);
    const entry = byStatus.get(error.status) ?? { meanings: [], schema: error.schema, examples: {} };
    entry.meanings.push(ERROR_MEANINGS[kind]);
    entry.examples[kind] = { value: error.example };
    byStatus.set(error.status, entry);
  }
  const internal = internalErrorResponse(api);
  byStatus.set(internal.status, {
    meanings: [ERROR_MEANINGS.internal],
    schema: internal.schema,
    examples: { internal: { value: internal.example } },
  });
  return Object.fromEntries(
    [...byStatus.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, entry]) => [
        String(status),
        {
          description: entry.meanings.join('; '),
          ...(status === 429
            ? {
                headers: {
                  'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer' } },
                },
              }
            : {}),
          content: { [JSON_CONTENT]: { schema: entry.schema, examples: entry.examples } },
        },
      ]),
  );
};

const parameters = (doc: RouteDoc, path: string) => {
  const inPath = [...path.matchAll(/\{(\w+)\+?\}/g)].map((m) => m[1] as string);
  return [
    ...inPath.map((name) => ({
      name,
      in: 'path',
      required: true,
      description: doc.path?.[name]?.description ?? name,
      schema: jsonSchemaOf(doc.path?.[name]?.schema ?? v.string()),
    })),
    ...Object.entries(doc.query ?? {}).map(([name, param]) => ({
      name,
      in: 'query',
      required: param.required ?? false,
      description: param.description,
      schema: jsonSchemaOf(param.schema ?? v.string()),
    })),
  ];
};

const requestBody = (doc: RouteDoc) => {
  if (doc.body === undefined) return undefined;
  const body: BodyDoc = isBodyDoc(doc.body) ? doc.body : { schema: doc.body };
  const examples = body.examples
    ? Object.fromEntries(Object.entries(body.examples).map(([name, value]) => [name, { value }]))
    : undefined;
  return {
    required: true,
    ...(body.description ? { description: body.description } : {}),
    content: {
      [body.contentType ?? JSON_CONTENT]: { schema: jsonSchemaOf(body.schema), ...(examples ? { examples } : {}) },
    },
  };
};

const operation = (fn: HttpFunction, path: string, hosts: readonly Host[], options: DocumentOptions) => {
  const doc = ROUTE_DOCS[fn.name];
  const servers = [...new Set(hosts.flatMap((host) => serversOf(host, options.servers)))];
  const base = {
    operationId: camel(fn.name),
    servers,
    'x-storeflow-hosts': hosts,
    'x-storeflow-function': fn.name,
  };
  if (!doc) {
    return {
      ...base,
      tags: ['Undocumented'],
      summary: fn.name,
      description: 'Not described yet.',
      parameters: parameters({ tag: '', summary: '', api: 'none', ok: { statusCode: 200, body: null } }, path),
      responses: { default: { description: 'Not described yet' } },
    };
  }
  const [status, success] = successResponse(doc);
  const body = requestBody(doc);
  const params = parameters(doc, path);
  return {
    ...base,
    tags: [doc.tag],
    summary: doc.summary,
    description: `${doc.description ? `${doc.description}\n\n` : ''}Host: ${hosts.join(', ')}.`,
    ...(doc.auth === false ? { security: [] } : {}),
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(body ? { requestBody: body } : {}),
    responses: { [status]: success, ...errorResponses(doc) },
  };
};

/** The interfaces of the documented routes, in the order they first appear. */
const apiInterfaces = (): ApiInterface[] => [
  ...new Set(
    Object.values(ROUTE_DOCS)
      .map((doc) => doc.api)
      .filter((api): api is ApiInterface => api !== 'none'),
  ),
];
const ALL_KINDS = Object.keys(ERROR_MEANINGS).filter((k) => k !== 'internal') as ErrorKind[];

/** The error table per interface, rendered from the same renderer the API answers with. */
const errorTable = () => {
  const rows = apiInterfaces().flatMap((api) =>
    [
      ...ALL_KINDS.map((kind) => ({ ...errorResponse(api, kind), meaning: ERROR_MEANINGS[kind] })),
      { ...internalErrorResponse(api), meaning: ERROR_MEANINGS.internal },
    ]
      .sort((a, b) => a.status - b.status)
      .map((error) => `| ${api} | ${error.status} | ${error.meaning} | \`${JSON.stringify(error.example)}\` |`),
  );
  return ['| Interface | HTTP status | Meaning | Body |', '| --- | --- | --- | --- |', ...rows].join('\n');
};

const DESCRIPTION = `Storeflow: marketing automation for online stores. Three hosts: **main** (\`{base_url}\`: events,
webhooks, OAuth sign-in, batch import), **front** (\`{front_url}\`, and \`{front_test_url}\` for the test stage: headless
events, contact export) and **sending** (\`{sending_url}\`: bulk email). Each operation lists its host as its server.

Every call sends the store's API key (\`shop_…\`) in \`X-Service-Access-Token\`; a missing or invalid key answers 401.
Each interface answers in its own shape: events \`{code, message}\`, headless \`{success, code?, message?}\`,
webhook management and the service's additions \`{code, data}\` / \`{code, message}\`, import and OAuth
\`{message, state, success, timestamp, data?}\`, export the page itself. The HTTP status equals \`code\`, except the
duplicate answer \`code: 304\`, sent with HTTP 200 (an HTTP 304 cannot carry a body).

The service calls the store back through signed webhooks (see \`webhooks\`): verify \`X-Service-hmac-sha256\`, the
Base64 HMAC-SHA256 of the raw body keyed with the store's API key.

## Errors

`;

export const buildOpenApiDocument = (options: DocumentOptions = {}): Record<string, unknown> => {
  if (options.strict) {
    const missing = undocumentedFunctions();
    if (missing.length > 0) throw new Error(`Catalog routes missing from the OpenAPI registry: ${missing.join(', ')}`);
    const orphans = orphanDocs();
    if (orphans.length > 0) throw new Error(`OpenAPI registry entries with no catalog route: ${orphans.join(', ')}`);
  }

  // One path item per path; one operation per method, served by the hosts that route it to the same function.
  const paths: Record<string, Record<string, unknown>> = {};
  const owners = new Map<string, string>();
  for (const fn of httpFunctions()) {
    if (EXCLUDED_ROUTES[fn.name]) continue;
    const byPathMethod = new Map<string, Host[]>();
    for (const r of fn.routes) {
      const key = `${r.method} ${r.path}`;
      byPathMethod.set(key, [...(byPathMethod.get(key) ?? []), r.host]);
    }
    for (const [key, hosts] of byPathMethod) {
      const [method, path] = key.split(' ') as [string, string];
      const owner = owners.get(key);
      if (owner && owner !== fn.name) {
        throw new Error(`${key} is routed to both ${owner} and ${fn.name} (on different hosts): OpenAPI has one`);
      }
      owners.set(key, fn.name);
      paths[path] = { ...paths[path], [method.toLowerCase()]: operation(fn, path, hosts, options) };
    }
  }

  const tags = [
    ...new Set(
      Object.values(paths).flatMap((item) => Object.values(item).flatMap((op) => (op as { tags: string[] }).tags)),
    ),
  ];
  const webhooks = webhooksSection();
  return {
    openapi: '3.1.0',
    info: {
      title: 'Storeflow API',
      version: '1.0.0',
      description: `${DESCRIPTION}${errorTable()}\n`,
    },
    servers: [server('main', options.servers)],
    tags: [...tags.map((name) => ({ name })), { name: 'Webhook deliveries' }],
    security: [{ storeKey: [] }],
    paths,
    webhooks,
    components: {
      securitySchemes: {
        storeKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Service-Access-Token',
          description: "The store's API key (`shop_` + 40 characters), from `npm run admin -- store create`",
        },
      },
      schemas: namedSchemas(),
    },
  };
};
