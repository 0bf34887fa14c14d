/** The description itself, served by every host. */
import { route } from '#shared/http/openapi/registry.ts';
import { DATA } from '#shared/http/openapi/shapes.ts';

export const META_ROUTES = {
  'openapi-document': route({
    tag: 'Meta',
    summary: 'This API description (OpenAPI 3.1)',
    description:
      'Served by each host without a key, with the servers of the deployment that answers. Cached by clients for ' +
      'five minutes; send `If-None-Match` with the `ETag` to get a bodiless 304 when it has not changed.',
    api: 'none',
    auth: false,
    ok: { statusCode: 200, body: DATA },
    data: { type: 'object', description: 'An OpenAPI 3.1 document' },
    okHeaders: {
      ETag: { description: 'Identifies this version of the document', schema: { type: 'string' } },
      'Cache-Control': { description: '`public, max-age=300`', schema: { type: 'string' } },
    },
  }),
};
