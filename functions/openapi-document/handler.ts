/**
 * `GET /api/v1/openapi.json` on every host: the API description (OpenAPI 3.1) with this deployment's host URLs as its
 * servers. No key: the contract is public. Built on the first request and kept for the life of the instance.
 */
import { createHash } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { config } from '#shared/config.ts';
import { buildOpenApiDocument, type ServerName } from '#shared/http/openapi/document.ts';
import { lazy } from '#shared/lazy.ts';
import { logger } from '#shared/observability.ts';

const document = lazy(() => {
  const { stage, publicMainUrl, publicFrontUrl, publicSendingUrl } = config();
  const servers: Partial<Record<ServerName, string>> = {};
  if (publicMainUrl) servers.main = publicMainUrl;
  // The test stage's front host is the spec's {front_test_url}.
  if (publicFrontUrl) servers[stage === 'test' ? 'frontTest' : 'front'] = publicFrontUrl;
  if (publicSendingUrl) servers.sending = publicSendingUrl;
  const body = JSON.stringify(buildOpenApiDocument({ servers }));
  return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
});

export const handler = async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => {
  let built: { body: string; etag: string };
  try {
    built = document();
  } catch (error) {
    logger.error('OpenAPI document could not be built', { error });
    return {
      statusCode: 500,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'Internal error' }),
    };
  }
  const headers = { etag: built.etag, 'cache-control': 'public, max-age=300' };
  if (event.headers?.['if-none-match'] === built.etag) return { statusCode: 304, headers };
  return {
    statusCode: 200,
    headers: { ...headers, 'content-type': 'application/json; charset=utf-8' },
    body: built.body,
  };
};
