/**
 * `OPTIONS {front_url}/api/v1/headless/events`: the CORS preflight a browser sends before a storefront page posts an
 * event with the store's publishable key. It carries no key, so it cannot tell the store: it lets any origin ask, and
 * the POST refuses an origin the store does not allow (shared/http/cors.ts). Touches nothing.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { preflightHeaders } from '#shared/http/cors.ts';

export const handler = async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => {
  const header = (name: string) => Object.entries(event.headers ?? {}).find(([key]) => key.toLowerCase() === name)?.[1];
  const origin = header('origin');
  if (!origin) return { statusCode: 204, headers: { allow: 'OPTIONS, POST' } };
  return { statusCode: 204, headers: preflightHeaders(origin, 'POST') };
};
