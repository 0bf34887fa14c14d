/** `POST {base_url}/api/v1/batch/customers?append=update`: import contacts from a JSONL file (`dataFile`). */

import { startImport } from '#shared/domain/imports/start-import.ts';
import type { MultipartBody } from '#shared/http/multipart.ts';
import { importReply } from '#shared/http/responses.ts';
import { httpRoute } from '#shared/http/route.ts';
import { AppendQuery } from '#shared/http/route-inputs.ts';
import { importDeps } from '#shared/wiring/imports.ts';

/** Lambda takes at most 6 MB per invocation and the file arrives base64-encoded: larger files use the upload URL. */
const MAX_FILE_BYTES = 4 * 1024 * 1024;

export const handler = httpRoute({
  query: AppendQuery,
  api: 'import',
  multipart: true,
  maxBodyBytes: MAX_FILE_BYTES,
  body: (body) => body as MultipartBody,
  handle: async ({ store, body }) =>
    importReply.ok(
      'Import started; bulk_operations/finish announces its end',
      await startImport(importDeps(), store, body.files.dataFile),
    ),
});
