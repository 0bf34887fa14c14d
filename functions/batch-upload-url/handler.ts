/** `POST {base_url}/api/v1/batch/customers/uploads?append=update&size=`: an upload URL for a file too large to post. */

import { requestUpload } from '#shared/domain/imports/start-import.ts';
import { importReply } from '#shared/http/responses.ts';
import { httpRoute } from '#shared/http/route.ts';
import { UploadQuery } from '#shared/http/route-inputs.ts';
import { LIMITS } from '#shared/limits.ts';
import { importDeps } from '#shared/wiring/imports.ts';

export const handler = httpRoute({
  query: UploadQuery,
  api: 'import',
  rateLimit: { bucket: 'import-uploads', perSecond: LIMITS.uploadUrlsPerSecond },
  handle: async ({ store, query }) =>
    importReply.ok(
      'PUT the JSONL file to uploadUrl, then POST /api/v1/batch/customers/uploads/{jobId}/start',
      await requestUpload(importDeps(), store, query.size),
    ),
});
