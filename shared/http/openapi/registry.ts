/**
 * The API description's registry: for every HTTP route of the function catalog (by function name), what the route
 * takes and answers. The catalog already says where a route lives (host, method, path, path parameters); an entry here
 * adds the rest, pointing at the valibot schemas the handler validates with and at the reply renderers of
 * `shared/http/responses.ts`. `test/unit/openapi/document.test.ts` fails for a catalog route without an entry.
 *
 * Adding a route: one entry in the area's file under `routes/` (or a new file, spread into `routes/index.ts`), e.g.
 *
 *   'flows-create': route({ tag: 'Flows', summary: 'Create a flow', api: 'webhooks', body: FlowInput,
 *     ok: webhooksReply.ok(DATA), data: FlowRecord, errors: ['validation', 'rate_limited'] }),
 */
import type { ErrorKind } from '#shared/errors.ts';
import type { Reply } from '#shared/http/reply.ts';
import type { ApiInterface } from '#shared/http/responses.ts';
import type { JsonSchema, SchemaSource } from './json-schema.ts';

export interface BodyDoc {
  readonly schema: SchemaSource;
  /** Default `application/json`. */
  readonly contentType?: string;
  readonly description?: string;
  readonly examples?: Readonly<Record<string, unknown>>;
}

export interface ParameterDoc {
  readonly description: string;
  readonly schema?: SchemaSource;
  readonly required?: boolean;
}

export interface RouteDoc {
  /** Groups operations in the reference (e.g. `Events`, `Webhooks`, `Flows`). */
  readonly tag: string;
  readonly summary: string;
  /** Markdown. */
  readonly description?: string;
  /** The response-shape family the handler renders with (errors are rendered through it); `none` for raw JSON. */
  readonly api: ApiInterface | 'none';
  /** Default true: the route takes the store key in `X-Service-Access-Token` (401 without it). */
  readonly auth?: boolean;
  /** The request body: a valibot schema (JSON), or a `BodyDoc` for another content type or examples. */
  readonly body?: SchemaSource | BodyDoc;
  /** Query parameters by name. */
  readonly query?: Readonly<Record<string, ParameterDoc>>;
  /** Descriptions (and schemas) of the catalog path's `{parameters}`; undescribed ones are documented as strings. */
  readonly path?: Readonly<Record<string, ParameterDoc>>;
  /**
   * The success reply(ies), rendered with `DATA` where the data goes (`webhooksReply.ok(DATA)`); several when one
   * status carries different bodies (the events interface's `code: 304` duplicate, sent with HTTP 200).
   */
  readonly ok: Reply | Readonly<Record<string, Reply>>;
  /** Schema of what stands at `DATA` in `ok`. */
  readonly data?: SchemaSource;
  /** Describes the success answer. */
  readonly okDescription?: string;
  /** Error kinds the route can answer besides 401 (with `auth`) and 500, each rendered in the interface's shape. */
  readonly errors?: readonly ErrorKind[];
  /** Example messages of this route's errors (the defaults are generic). */
  readonly errorMessages?: Readonly<Partial<Record<ErrorKind, string>>>;
  /** Response headers of the success answer, by name. */
  readonly okHeaders?: Readonly<Record<string, { readonly description: string; readonly schema: JsonSchema }>>;
}

/** Identity with the type: entries read as `'name': route({...})`. */
export const route = (doc: RouteDoc): RouteDoc => doc;

/** Catalog HTTP functions deliberately left out of the description, with the reason (shown by the test). */
export type Exclusions = Readonly<Record<string, string>>;
