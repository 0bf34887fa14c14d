/** `GET {base_url}/api/v1/batch/{jobId}`: an import's status, counts and line errors. */

import { getImportJob } from '#shared/domain/imports/start-import.ts';
import { importReply } from '#shared/http/responses.ts';
import { httpRoute } from '#shared/http/route.ts';
import { importDeps } from '#shared/wiring/imports.ts';

export const handler = httpRoute({
  api: 'import',
  handle: async ({ store, event }) =>
    importReply.ok('ok', await getImportJob(importDeps(), store.storeId, event.pathParameters?.jobId)),
});
