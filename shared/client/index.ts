/**
 * A typed Storeflow client: openapi-fetch over the types generated from the OpenAPI document (`npm run openapi`), with
 * each operation sent to its own host (main, front or sending) and the store key on every call.
 *
 *   const storeflow = createStoreflowClient({ mainUrl, frontUrl, sendingUrl, apiKey });
 *   const { data, error } = await storeflow.POST('/api/v1/events', { body: { endpoint: 'customers/create', … } });
 *   const page = await storeflow.GET('/api/v1/audience', { params: { query: { page_size: '100' } } }); // front host
 */
import createClient, { type Client, type ClientOptions, type Middleware } from 'openapi-fetch';
import OPERATION_HOSTS from './operation-hosts.json' with { type: 'json' };
import type { components, paths } from './schema.d.ts';

export type { components, paths };
export type StoreflowClient = Client<paths>;
export type StoreflowHost = 'main' | 'front' | 'sending';

export interface StoreflowClientOptions {
  /** Base URL of each host (the stack outputs `MainUrl`, `FrontUrl`, `SendingUrl`; `.local/stack.json` locally). */
  readonly mainUrl: string;
  readonly frontUrl: string;
  readonly sendingUrl: string;
  /** The store's API key, sent as `X-Service-Access-Token`; omit for the public operations only. */
  readonly apiKey?: string;
  /** A fetch to use instead of the global one. */
  readonly fetch?: ClientOptions['fetch'];
  /** More middleware, run after the host routing (e.g. logging, response checks). */
  readonly middleware?: readonly Middleware[];
}

const hostOf = (schemaPath: string, method: string): StoreflowHost =>
  ((OPERATION_HOSTS as Record<string, Record<string, string>>)[schemaPath]?.[method] as StoreflowHost) ?? 'main';

export const createStoreflowClient = (options: StoreflowClientOptions): StoreflowClient => {
  const bases: Record<StoreflowHost, string> = {
    main: options.mainUrl,
    front: options.frontUrl,
    sending: options.sendingUrl,
  };
  const client = createClient<paths>({
    baseUrl: options.mainUrl,
    ...(options.apiKey ? { headers: { 'X-Service-Access-Token': options.apiKey } } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  // Requests are built against the main host; an operation of another host moves there, path and query unchanged.
  const hostRouting: Middleware = {
    onRequest: ({ request, schemaPath }) => {
      const host = hostOf(schemaPath, request.method);
      if (host === 'main') return undefined;
      const url = new URL(request.url);
      const target = new URL(`${bases[host].replace(/\/$/, '')}${url.pathname}${url.search}`);
      return new Request(target, request);
    },
  };
  client.use(hostRouting, ...(options.middleware ?? []));
  return client;
};
