/**
 * The local-only control routes under `/_local/` on the main gateway (time travel, simulated email events). They are
 * not in the catalog, so they never exist in a deployment. Each takes a JSON object and answers JSON.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LocalRouteHandler } from './gateway.ts';

export interface LocalAnswer {
  readonly status: number;
  readonly body: unknown;
}

/** One control route: the parsed JSON body (an object; `{}` for anything else) in, the answer out. */
export type LocalRoute = (body: Record<string, unknown>) => Promise<LocalAnswer>;

const readJson = (body: Buffer): Record<string, unknown> | undefined => {
  try {
    const value: unknown = JSON.parse(body.toString('utf8') || '{}');
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
};

const answer = (response: ServerResponse, { status, body }: LocalAnswer) => {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
};

/** Routes keyed `METHOD /path`; any other request falls through to the catalog's routes. */
export const localRouter =
  (routes: Readonly<Record<string, LocalRoute>>): LocalRouteHandler =>
  async (request: IncomingMessage, body: Buffer, response: ServerResponse) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    const route = routes[`${request.method} ${path}`];
    if (!route) return false;
    // A body that is not a JSON object reads as `{}`: each route then names the field it misses.
    answer(response, await route(readJson(body) ?? {}));
    return true;
  };
