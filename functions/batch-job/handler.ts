/** `GET {base_url}/api/v1/batch/{jobId}`: an import's status, counts and line errors. */

import { getImportJob } from '#shared/domain/imports/start-import.ts';
import { importReply } from '#shared/http/responses.ts';
import { httpRoute } from '#shared/http/route.ts';
import { ImportJobPath } from '#shared/http/route-inputs.ts';
import { importJobDeps } from '#shared/wiring/imports.ts';

export const handler = httpRoute({
  path: ImportJobPath,
  api: 'import',
  handle: async ({ store, path }) =>
    importReply.ok('ok', await getImportJob(importJobDeps(), store.storeId, path.jobId)),
});
