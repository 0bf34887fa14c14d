/**
 * The local HTTP gateway: one server per host, turning requests into API Gateway v2 (payload format 2.0) events for the
 * catalog's handlers and their results back into HTTP, as API Gateway HTTP APIs do.
 */
import { isUtf8 } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2, Context } from 'aws-lambda';
import type { Host, HttpMethod } from '#shared/catalog/hosts.ts';

/** API Gateway's own payload limit for HTTP APIs; larger bodies never reach a function. */
const GATEWAY_MAX_BODY_BYTES = 10 * 1024 * 1024;

export type HttpLambda = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyResultV2>;

export interface GatewayRoute {
  readonly method: HttpMethod;
  readonly path: string;
  readonly invoke: HttpLambda;
  readonly context: () => Context;
}

/** Extra handling before routing (the local-only `/_local/...` control routes); returns true when it answered. */
export type LocalRouteHandler = (request: IncomingMessage, body: Buffer, response: ServerResponse) => Promise<boolean>;

export interface Gateway {
  readonly host: Host;
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

interface CompiledRoute extends GatewayRoute {
  readonly pattern: RegExp;
  readonly params: readonly string[];
  readonly routeKey: string;
}

const compile = (route: GatewayRoute): CompiledRoute => {
  const params: string[] = [];
  const source = route.path
    .split('/')
    .map((segment) => {
      const match = /^\{(\w+)\+?\}$/.exec(segment);
      if (!match?.[1]) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      params.push(match[1]);
      return '([^/]+)';
    })
    .join('/');
  return { ...route, pattern: new RegExp(`^${source}$`), params, routeKey: `${route.method} ${route.path}` };
};

const TEXT_TYPES = /^(application\/(json|x-www-form-urlencoded|xml)|text\/)/i;

/** A path parameter decoded; a malformed `%` sequence is handed over as sent, for the handler to refuse (not a 500). */
const decodePathSegment = (segment: string): string => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
};

const toEvent = (request: IncomingMessage, body: Buffer, route: CompiledRoute, match: RegExpExecArray, url: URL) => {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  }
  // API Gateway tells the function the scheme it was called on; the local gateway serves plain HTTP.
  headers['x-forwarded-proto'] = 'http';
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams)
    query[name] = query[name] === undefined ? value : `${query[name]},${value}`;
  // A text body that is not valid UTF-8 goes over base64-encoded, bytes as sent, for the handler to judge.
  const isText = TEXT_TYPES.test(headers['content-type'] ?? '') && isUtf8(body);
  const now = new Date();
  const event: APIGatewayProxyEventV2 = {
    version: '2.0',
    routeKey: route.routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'local',
      http: {
        method: request.method ?? 'GET',
        path: url.pathname,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey: route.routeKey,
      stage: '$default',
      time: now.toISOString(),
      timeEpoch: now.getTime(),
    },
    isBase64Encoded: body.length > 0 && !isText,
  };
  if (Object.keys(query).length > 0) event.queryStringParameters = query;
  if (route.params.length > 0) {
    event.pathParameters = Object.fromEntries(
      route.params.map((name, i) => [name, decodePathSegment(match[i + 1] ?? '')]),
    );
  }
  if (body.length > 0) event.body = isText ? body.toString('utf8') : body.toString('base64');
  return event;
};

const sendJson = (response: ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
};

const writeResult = (response: ServerResponse, result: APIGatewayProxyResultV2) => {
  // Like API Gateway: a result without `statusCode` is a 200 JSON body.
  if (typeof result === 'string' || result === null || typeof result !== 'object' || !('statusCode' in result)) {
    sendJson(response, 200, result);
    return;
  }
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  if (result.cookies?.length) headers['set-cookie'] = result.cookies;
  response.writeHead(result.statusCode ?? 200, headers);
  response.end(
    result.body === undefined ? undefined : Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8'),
  );
};

const readBody = (request: IncomingMessage): Promise<Buffer | undefined> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > GATEWAY_MAX_BODY_BYTES) {
        resolve(undefined);
        request.resume();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(size > GATEWAY_MAX_BODY_BYTES ? undefined : Buffer.concat(chunks)));
    request.on('error', reject);
  });

export const startGateway = async (options: {
  host: Host;
  port: number;
  bind?: string;
  routes: readonly GatewayRoute[];
  local?: LocalRouteHandler;
  onError?: (error: unknown) => void;
}): Promise<Gateway> => {
  const routes = options.routes.map(compile);
  const server: Server = createServer(async (request, response) => {
    try {
      const url = new URL(request.url ?? '/', 'http://localhost');
      const body = await readBody(request);
      if (body === undefined) {
        sendJson(response, 413, { message: 'Request Entity Too Large' });
        return;
      }
      if (options.local && (await options.local(request, body, response))) return;
      let pathMatched = false;
      for (const route of routes) {
        const match = route.pattern.exec(url.pathname);
        if (!match) continue;
        pathMatched = true;
        if (route.method !== request.method) continue;
        const result = await route.invoke(toEvent(request, body, route, match, url), route.context());
        writeResult(response, result);
        return;
      }
      // API Gateway HTTP APIs answer unmatched routes with 404 {"message":"Not Found"}.
      sendJson(response, pathMatched ? 405 : 404, { message: pathMatched ? 'Method Not Allowed' : 'Not Found' });
    } catch (error) {
      options.onError?.(error);
      if (!response.headersSent) sendJson(response, 500, { message: 'Internal Server Error' });
      else response.end();
    }
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.bind ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    host: options.host,
    port,
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
};
