/** `POST {base_url}/api/v1/batch/customers/uploads/{jobId}/start`: import a file uploaded to its upload URL. */

import { startUploaded } from '#shared/domain/imports/start-import.ts';
import { importReply } from '#shared/http/responses.ts';
import { httpRoute } from '#shared/http/route.ts';
import { ImportJobPath } from '#shared/http/route-inputs.ts';
import { importDeps } from '#shared/wiring/imports.ts';

export const handler = httpRoute({
  path: ImportJobPath,
  api: 'import',
  handle: async ({ store, path }) =>
    importReply.ok(
      'Import started; bulk_operations/finish announces its end',
      await startUploaded(importDeps(), store.storeId, path.jobId),
    ),
});
