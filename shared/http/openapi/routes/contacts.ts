/** Contacts: the export on `{front_url}` and the batch import on `{base_url}`. */
import { EXPORT_PAGE_SIZE } from '#shared/domain/contacts/export-contacts.ts';
import { IMPORT_INTERVAL_SECONDS } from '#shared/domain/imports/model.ts';
import { ref } from '#shared/http/openapi/components.ts';
import { route } from '#shared/http/openapi/registry.ts';
import { ExportPage, ImportJob, ImportUpload, ImportUploadForm } from '#shared/http/openapi/schemas.ts';
import { DATA } from '#shared/http/openapi/shapes.ts';
import { exportReply, importReply } from '#shared/http/responses.ts';
import {
  AppendQuery,
  ExportQueryParameters,
  ImportJobPath,
  parametersOf,
  UploadQuery,
} from '#shared/http/route-inputs.ts';
import { LIMITS } from '#shared/limits.ts';

const importOk = importReply.ok('Import started; bulk_operations/finish announces its end', DATA);
const jobId = parametersOf(ImportJobPath);
const pace = `One import per store every ${IMPORT_INTERVAL_SECONDS} seconds (429 with Retry-After otherwise).`;

export const CONTACT_ROUTES = {
  'contacts-export': route({
    tag: 'Contacts',
    summary: 'Export contacts, page by page',
    description:
      `Pages in a stable order (creation time, then id), default ${EXPORT_PAGE_SIZE.default} and at most ` +
      `${EXPORT_PAGE_SIZE.max} per page; either time bound alone or both. Pages may be taken at different moments, ` +
      'so they need not form one snapshot. Leave at least one second between requests (faster answers 429). ' +
      'Bodies above 8 KiB are gzipped for clients sending `Accept-Encoding: gzip`. A page larger than one response ' +
      '(6 MB; only contacts near their 16 KiB exported-record budget make one) is answered `303 See Other` with a ' +
      '`Location` serving the same JSON for 5 minutes: follow redirects (curl `-L`).',
    api: 'export',
    query: parametersOf(ExportQueryParameters),
    ok: exportReply.ok(DATA),
    data: ref('ExportPage', ExportPage),
    errors: ['validation', 'rate_limited'],
    errorMessages: { validation: 'page_size must be at most 5000' },
  }),
  'batch-import': route({
    tag: 'Contacts',
    summary: 'Import contacts from a JSONL file',
    description:
      'Upserts one customer per line by `id` (the fields of the general `customers` event) and starts no flow. The ' +
      'job runs in the background; `bulk_operations/finish` announces its end and `GET /api/v1/batch/{jobId}` shows ' +
      `its counts and line errors. Files above 4 MiB go through an upload URL. ${pace}`,
    api: 'import',
    query: parametersOf(AppendQuery),
    body: { schema: ImportUploadForm, contentType: 'multipart/form-data' },
    ok: importOk,
    data: ref('ImportJob', ImportJob),
    errors: ['validation', 'payload_too_large', 'rate_limited'],
    errorMessages: {
      validation: 'append must be "update"',
      rate_limited: 'One import per store every 10 seconds; retry later',
    },
  }),
  'batch-upload-url': route({
    tag: 'Contacts',
    summary: 'Get an upload URL for a large import file',
    description:
      'Creates a job waiting for its file and a presigned URL (15 minutes) to PUT the JSONL file to; then start it. ' +
      'The URL is signed for the declared `size` (S3 refuses a PUT of another length; the start refuses a larger ' +
      `file). At most ${LIMITS.uploadUrlsPerSecond} upload URLs per second per store.`,
    api: 'import',
    query: parametersOf(UploadQuery),
    ok: importReply.ok(
      'PUT the JSONL file to uploadUrl, then POST /api/v1/batch/customers/uploads/{jobId}/start',
      DATA,
    ),
    data: ref('ImportUpload', ImportUpload),
    errors: ['validation', 'rate_limited'],
    errorMessages: { validation: 'append must be "update"' },
  }),
  'batch-upload-start': route({
    tag: 'Contacts',
    summary: 'Start the import of an uploaded file',
    description:
      'Starts a job once: a repeated start, and the loser of two starts sent at once, answer 409 `The job is already ' +
      '<status>` (the loser may instead get 429 while the winner holds the slot but has not yet queued the job; its ' +
      'retry then answers 409). A start that queues nothing does not use up the store’s slot. 400 when the file has ' +
      `not been uploaded. ${pace}`,
    api: 'import',
    path: jobId,
    ok: importOk,
    data: ref('ImportJob', ImportJob),
    errors: ['validation', 'not_found', 'conflict', 'rate_limited'],
    errorMessages: {
      validation: 'dataFile has not been uploaded yet',
      not_found: 'Import job not found',
      conflict: 'The job is already queued',
    },
  }),
  'batch-job': route({
    tag: 'Contacts',
    summary: "An import's status, counts and line errors",
    api: 'import',
    path: jobId,
    ok: importReply.ok('ok', DATA),
    data: ref('ImportJob', ImportJob),
    errors: ['not_found'],
    errorMessages: { not_found: 'Import job not found' },
  }),
};
