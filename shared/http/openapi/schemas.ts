/**
 * Schemas of what the API answers (records, pages, jobs) and of the multipart import upload, written with valibot over
 * the domain's own constants so a limit changed in the domain changes here. Used for the description only; the e2e
 * tests check real answers against them through the typed client. Requests are described by the schemas their
 * handlers read them with (`shared/http/route-inputs.ts`, the domain's request schemas).
 */
import * as v from 'valibot';
import { WEBHOOK_TOPICS } from '#shared/domain/webhooks/topics.ts';
import type { JsonSchema } from './json-schema.ts';

const seconds = (what: string) => v.pipe(v.number(), v.integer(), v.description(`${what}, Unix epoch seconds`));
const millis = (what: string) => v.pipe(v.number(), v.integer(), v.description(`${what}, Unix epoch milliseconds`));

export const WebhookTopic = v.pipe(v.picklist(WEBHOOK_TOPICS), v.description('Webhook topic'));

/** Spec "Webhook record". */
export const WebhookRecord = v.object({
  id: v.string(),
  topic: WebhookTopic,
  url: v.string(),
  format: v.literal('json'),
  createdAt: seconds('When the subscription was made'),
});

export const WebhookList = v.object({
  list: v.array(WebhookRecord),
  total: v.pipe(v.number(), v.integer()),
});

export const DeliveryAttempt = v.object({
  at: millis('When the attempt started'),
  statusCode: v.optional(v.pipe(v.number(), v.integer(), v.description("The receiver's HTTP status"))),
  latencyMs: v.number(),
  outcome: v.picklist(['delivered', 'rejected', 'timeout', 'error']),
  responseExcerpt: v.optional(v.pipe(v.string(), v.description("The first 500 characters of the receiver's answer"))),
  error: v.optional(v.string()),
});

export const DeliveryRecord = v.object({
  id: v.string(),
  webhookId: v.string(),
  topic: WebhookTopic,
  url: v.string(),
  status: v.picklist(['pending', 'delivered', 'failed', 'cancelled']),
  reason: v.optional(v.string()),
  attempts: v.array(DeliveryAttempt),
  createdAt: millis('When the delivery was created'),
  updatedAt: millis('Last change'),
});

export const DeliveryPage = v.object({
  list: v.array(DeliveryRecord),
  nextCursor: v.optional(v.pipe(v.string(), v.description('Pass as `cursor` for the next page; absent on the last'))),
});

/** Spec "Contact record (contact export)". */
export const ContactRecord = v.object({
  id: v.pipe(v.string(), v.description('Internal contact id')),
  origin_id: v.pipe(v.string(), v.description('Original platform customer id')),
  email: v.string(),
  phone: v.string(),
  first_name: v.string(),
  last_name: v.string(),
  country: v.pipe(v.string(), v.description('ISO 3166-1 alpha-2, or empty')),
  country_name: v.string(),
  city: v.string(),
  gender: v.picklist(['male', 'female', '']),
  birth_date: v.pipe(v.string(), v.description('`yyyy-MM-dd`; empty string when there is no data')),
  email_subscribed: v.boolean(),
  sms_subscribed: v.boolean(),
  created_at: v.pipe(v.string(), v.description('`yyyy-MM-dd HH:mm:ss`, UTC')),
  tags: v.array(v.object({ category: v.string(), value: v.string() })),
  platform_tags: v.array(v.string()),
});

export const ExportPage = v.object({
  page: v.pipe(v.number(), v.integer()),
  page_size: v.pipe(v.number(), v.integer()),
  total_count: v.pipe(v.number(), v.integer(), v.description('Contacts matching (counted at most once a minute)')),
  total_pages: v.pipe(v.number(), v.integer(), v.description('total_count / page_size, rounded up')),
  data: v.array(ContactRecord),
});

export const ImportCounts = v.object({
  lines: v.pipe(v.number(), v.integer()),
  imported: v.pipe(v.number(), v.integer()),
  created: v.pipe(v.number(), v.integer()),
  failed: v.pipe(v.number(), v.integer()),
});

/** An import job as the API shows it (`importJobView`). */
export const ImportJob = v.object({
  jobId: v.string(),
  endpoint: v.literal('customers'),
  status: v.picklist(['uploading', 'queued', 'running', 'finished']),
  result: v.optional(v.pipe(v.picklist(['SUCCESS', 'FAIL']), v.description('Once finished'))),
  counts: ImportCounts,
  errors: v.array(v.object({ line: v.pipe(v.number(), v.integer()), reason: v.string() })),
  createdAt: millis('When the job was created'),
  startedAt: v.optional(millis('When processing started')),
  finishedAt: v.optional(millis('When processing ended')),
});

export const ImportUpload = v.object({
  ...ImportJob.entries,
  uploadUrl: v.pipe(v.string(), v.description('PUT the JSONL file here, then start the job')),
  uploadMethod: v.literal('PUT'),
  expiresInSeconds: v.pipe(v.number(), v.integer()),
});

/** `multipart/form-data` with the JSONL file in `dataFile`. */
export const ImportUploadForm: JsonSchema = {
  type: 'object',
  properties: {
    dataFile: {
      type: 'string',
      contentMediaType: 'application/x-ndjson',
      description: 'JSONL: one customer per line, the fields of the general `customers` event',
    },
  },
  required: ['dataFile'],
};
