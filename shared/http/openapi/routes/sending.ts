/**
 * Sending domains on `{base_url}` (`{code, data}` answers) and bulk email on `{sending_url}` (the spec's `{totalAccepted,
 * totalRejected, id, code: "200", succeed, message}` shape), as docs/sending.md describes them. The bulk request is the
 * handler's own valibot schema (`RequestSchema` of `shared/domain/email/bulk-request.ts`), with the rules JSON Schema cannot
 * take from a valibot action (html or text, no CR/LF, refused header names) added back beside it.
 */
import * as v from 'valibot';
import { REJECTION_REASONS, SENDING_LIMITS } from '#shared/domain/email/bulk-model.ts';
import { RequestSchema } from '#shared/domain/email/bulk-request.ts';
import { SenderRequest } from '#shared/domain/email/senders.ts';
import { ref } from '#shared/http/openapi/components.ts';
import { type JsonSchema, jsonSchemaOf } from '#shared/http/openapi/json-schema.ts';
import { route } from '#shared/http/openapi/registry.ts';
import { DATA, replyShape } from '#shared/http/openapi/shapes.ts';
import { sendingReply, webhooksReply } from '#shared/http/responses.ts';
import { parametersOf, SendBatchPath, SenderPath } from '#shared/http/route-inputs.ts';
import { LIMITS } from '#shared/limits.ts';

const seconds = (what: string) => v.pipe(v.number(), v.integer(), v.description(`${what}, Unix epoch seconds`));
const count = (what: string) => v.pipe(v.number(), v.integer(), v.minValue(0), v.description(what));

// ── Sending domains ──

const senderPace = `At most ${LIMITS.webhookManagementPerSecond} calls per second per store.`;

const SenderRecord = v.object({
  domain: v.pipe(v.string(), v.description('Lower case, without a trailing dot, in its ASCII (IDNA) form')),
  status: v.pipe(
    v.picklist(['pending', 'verified', 'failed']),
    v.description(
      '`pending`: SES has not seen the DKIM records yet; `verified`: the store may send from any address at the ' +
        'domain; `failed`: SES could not verify the records (fix DNS and read again)',
    ),
  ),
  dnsRecords: v.pipe(
    v.array(
      v.object({
        type: v.literal('CNAME'),
        name: v.pipe(v.string(), v.description('`<token>._domainkey.<domain>`')),
        value: v.pipe(v.string(), v.description('`<token>.dkim.amazonses.com`')),
      }),
    ),
    v.description('The three Easy DKIM records to publish in the domain’s DNS'),
  ),
  createdAt: seconds('When the domain was registered'),
  verifiedAt: v.optional(seconds('When SES first reported the domain verified')),
});

const SenderList = v.object({
  list: v.array(SenderRecord),
  total: count('Number of sending domains'),
});

const domainPath = parametersOf(SenderPath);

const sender = () => ref('SenderRecord', SenderRecord);
const senderOk = webhooksReply.ok(DATA);
const NOT_REGISTERED = 'Sender domain mail.shop.example is not registered in this store';

// ── Bulk email ──

const REFUSED_HEADERS =
  '`From`, `To`, `Cc`, `Bcc`, `Subject`, `Reply-To`, `Sender`, `Return-Path`, `Date`, `Message-ID`, `MIME-Version`, ' +
  '`Content-Type`, `Content-Transfer-Encoding`, `Content-Disposition`, `Content-ID`, `List-Unsubscribe`, ' +
  '`List-Unsubscribe-Post`, `DKIM-Signature`, `Received`, `Feedback-ID` and any `X-SES-*` (case-insensitive)';

/** No CR or LF: what `noLineBreak` (a `v.check`, which JSON Schema conversion leaves out) refuses. */
const ONE_LINE = '^[^\\r\\n]*$';
const oneLine = (schema: JsonSchema | undefined): JsonSchema => ({ ...schema, pattern: ONE_LINE });

const bulkRequest = jsonSchemaOf(RequestSchema);
const bulkProperties = (bulkRequest.properties ?? {}) as Record<string, JsonSchema>;
const described = (name: string, description: string, schema = bulkProperties[name]): JsonSchema => ({
  ...schema,
  description,
});
/** `from` and `recipients[].address` with their CR/LF rules, the rest as converted. */
const props = (schema: JsonSchema | undefined) => (schema?.properties ?? {}) as Record<string, JsonSchema>;
const from: JsonSchema = {
  ...bulkProperties.from,
  properties: { ...props(bulkProperties.from), name: oneLine(props(bulkProperties.from).name) },
};
const recipientItem = (bulkProperties.recipients?.items ?? {}) as JsonSchema;
const address = props(recipientItem).address;
const recipients: JsonSchema = {
  ...bulkProperties.recipients,
  items: {
    ...recipientItem,
    properties: {
      ...props(recipientItem),
      address: { ...address, properties: { ...props(address), name: oneLine(props(address).name) } },
    },
  },
};

const BulkEmailRequest: JsonSchema = {
  ...bulkRequest,
  description:
    'One content for 1 to 2,000 recipients. subject, preheader, html, text, headers and substitutionData together ' +
    `take at most ${SENDING_LIMITS.maxContentBytes / 1024} KB (as JSON); each recipient's substitutionData at most ` +
    `${SENDING_LIMITS.maxRecipientDataBytes / 1024} KB. CR or LF in subject, from.name, replyTo, a recipient name, ` +
    'a header name or value refuses the whole request (400).',
  properties: {
    ...bulkProperties,
    subject: {
      ...described('subject', 'Not empty after trimming, no CR/LF; SES `{{var}}` placeholders allowed'),
      pattern: '^[^\\r\\n]*\\S[^\\r\\n]*$',
    },
    preheader: described('preheader', 'Hidden preview text placed at the start of the HTML body (HTML-escaped)'),
    html: described('html', 'SES template (Handlebars: `{{var}}`, `{{#if}}`, `{{#each}}`); html or text required'),
    text: described('text', 'SES template; html or text required'),
    from: described(
      'from',
      '`email` must be at a **verified sending domain of this store** (`POST /api/v1/senders`); `name` has no CR/LF',
      from,
    ),
    recipients: described(
      'recipients',
      'An invalid, repeated (case-insensitive) or suppressed address rejects only that recipient (see `rejections`)',
      recipients,
    ),
    replyTo: oneLine(described('replyTo', 'An address, no CR/LF; absent or empty: the from address')),
    headers: {
      ...bulkProperties.headers,
      maxProperties: SENDING_LIMITS.maxHeaders,
      propertyNames: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9-]{0,75}$' },
      additionalProperties: { type: 'string', pattern: '^[\\t\\x20-\\x7e]{0,995}$' },
      description: `Extra headers: printable ASCII values of at most 995 characters. Refused names: ${REFUSED_HEADERS}.`,
    },
    substitutionData: described(
      'substitutionData',
      'Variables common to every recipient; a recipient’s own substitutionData is merged over it key by key',
    ),
  },
  // At least one of html and text, not empty.
  anyOf: [
    { required: ['html'], properties: { html: { minLength: 1 } } },
    { required: ['text'], properties: { text: { minLength: 1 } } },
  ],
};

const Rejection = v.object({
  index: v.pipe(v.number(), v.integer(), v.minValue(0), v.description('Position in the request’s `recipients`')),
  email: v.pipe(v.string(), v.description('The address as accepted, or as given when it is invalid')),
  reason: v.picklist(REJECTION_REASONS),
});

const Failure = v.object({
  index: v.pipe(v.number(), v.integer(), v.minValue(0), v.description('Position in the request’s `recipients`')),
  email: v.string(),
  error: v.pipe(v.string(), v.description('Why SES did not take it')),
});

const BATCH_ID = 'sb_3kQ9x0bL7mWcT1vZp2Ya';

/**
 * A sending answer: the fields of the answer beside the `code`, `succeed` and `message` the renderer adds (rendered
 * here through `sendingReply.ok` rather than written again).
 */
const sendingAnswer = (message: string, fields: v.ObjectSchema<v.ObjectEntries, undefined>): JsonSchema => {
  const reply = sendingReply.ok(message, { id: BATCH_ID });
  const rendered = replyShape(reply);
  const own = jsonSchemaOf(fields);
  const { id: _id, ...added } = (rendered.properties ?? {}) as Record<string, JsonSchema>;
  // `code` is the same String on every success (the shape renders strings as examples only).
  const code = (reply.body as { code: string }).code;
  return {
    type: 'object',
    properties: { ...own.properties, ...added, code: { ...added.code, const: code } },
    required: [...new Set([...(own.required ?? []), ...(rendered.required ?? [])])],
  };
};

const BulkAccepted = sendingAnswer(
  '2 recipients accepted',
  v.object({
    totalAccepted: count('Recipients that will be sent'),
    totalRejected: count('Recipients rejected (listed in `rejections`)'),
    id: v.pipe(
      v.string(),
      v.description('The batch id: `transmission_id` in email events; read it with `GET /api/v1/sending/{id}`'),
      v.examples([BATCH_ID]),
    ),
    rejections: v.array(Rejection),
  }),
);

const BatchStatus = sendingAnswer(
  'batch sending',
  v.object({
    id: v.pipe(v.string(), v.examples([BATCH_ID])),
    status: v.pipe(
      v.picklist(['queued', 'sending', 'sent']),
      v.description('`queued`: no chunk sent yet; `sending`; `sent`: every chunk done (also with nothing to send)'),
    ),
    createdAt: seconds('When the batch was accepted'),
    from: v.object({ email: v.string(), name: v.optional(v.string()) }),
    subject: v.string(),
    totalAccepted: count('Recipients accepted'),
    totalRejected: count('Recipients rejected at the request'),
    sent: count('Recipients SES took'),
    failed: count('Recipients SES refused for good (listed in `failures`)'),
    pending: count('Accepted recipients neither sent nor failed yet'),
    chunks: count('SendBulkEmail calls planned (50 recipients each)'),
    chunksDone: count('Chunks done'),
    rejections: v.array(Rejection),
    failures: v.array(Failure),
  }),
);

const okAnswer = { statusCode: 200, body: DATA } as const;
const NOT_VERIFIED =
  'from.email domain mail.shop.example is not verified yet: publish its DKIM records ' +
  '(GET /api/v1/senders/mail.shop.example) and retry once DNS has them';

export const SENDING_ROUTES = {
  'senders-create': route({
    tag: 'Sending domains',
    summary: 'Register a sending domain',
    description:
      'Creates an SES identity with Easy DKIM and answers the three CNAME records to publish; once DNS has them the ' +
      'domain turns `verified` and the store may send from any address at it. A repeat by the same store answers the ' +
      'same sender. A domain sends for one store only: another store registering it answers 409 until the owner ' +
      `deletes it. ${senderPace}`,
    api: 'webhooks',
    body: {
      schema: ref('SenderRequest', SenderRequest),
      examples: { domain: { domain: 'mail.shop.example' } },
    },
    ok: senderOk,
    data: sender(),
    errors: ['validation', 'payload_too_large', 'conflict', 'rate_limited'],
    errorMessages: {
      validation: 'domain must be a domain name such as mail.example.com',
      conflict: 'The domain mail.shop.example is registered by another store; a domain can send for one store only',
    },
  }),
  'senders-list': route({
    tag: 'Sending domains',
    summary: 'List sending domains',
    description: `The store's sending domains, each with its status as last read. ${senderPace}`,
    api: 'webhooks',
    ok: senderOk,
    data: ref('SenderList', SenderList),
    errors: ['rate_limited'],
  }),
  'senders-get': route({
    tag: 'Sending domains',
    summary: 'Read a sending domain',
    description:
      "The domain with its status read afresh from SES. Another store's domain answers like an unregistered one. " +
      senderPace,
    api: 'webhooks',
    path: domainPath,
    ok: senderOk,
    data: sender(),
    errors: ['validation', 'not_found', 'rate_limited'],
    errorMessages: {
      validation: 'domain must be a domain name such as mail.example.com',
      not_found: NOT_REGISTERED,
    },
  }),
  'senders-delete': route({
    tag: 'Sending domains',
    summary: 'Remove a sending domain',
    description: `Deletes its SES identity and frees the domain (another store may then register it). ${senderPace}`,
    api: 'webhooks',
    path: domainPath,
    ok: senderOk,
    data: { type: 'boolean', const: true },
    errors: ['validation', 'not_found', 'rate_limited'],
    errorMessages: {
      validation: 'domain must be a domain name such as mail.example.com',
      not_found: NOT_REGISTERED,
    },
  }),
  'sending-create': route({
    tag: 'Bulk email',
    summary: 'Send a bulk email',
    description:
      'Checks the request as a whole, then each recipient: an invalid, repeated or suppressed (unsubscribed, ' +
      'bounced, complained) address is rejected and counted, the others are stored and queued. Answers once the ' +
      'batch is queued, without waiting for SES; a call whose every recipient is rejected still answers 200 ' +
      '(`totalAccepted: 0`). On any error nothing is queued; a retry is a new batch. ' +
      `At most ${SENDING_LIMITS.sendsPerSecond} sends per second per store; the body at most ` +
      `${SENDING_LIMITS.maxBodyBytes / 1024 / 1024} MB.`,
    api: 'sending',
    body: {
      schema: ref('BulkEmailRequest', BulkEmailRequest),
      examples: {
        newsletter: {
          subject: 'Hello {{firstName}}',
          html: '<p>Hi {{firstName}}, our spring sale starts today.</p>',
          text: 'Hi {{firstName}}, our spring sale starts today.',
          from: { name: 'The Shop', email: 'news@mail.shop.example' },
          recipients: [
            { address: { email: 'ada@example.com', name: 'Ada', substitutionData: { firstName: 'Ada' } } },
            { address: { email: 'alan@example.com', substitutionData: { firstName: 'Alan' } } },
          ],
          substitutionData: { firstName: 'there' },
        },
      },
    },
    ok: okAnswer,
    data: ref('BulkEmailAccepted', BulkAccepted),
    okDescription: 'The batch is stored and queued',
    errors: ['validation', 'payload_too_large', 'conflict', 'rate_limited', 'unavailable'],
    errorMessages: {
      validation: `recipients must have at most ${SENDING_LIMITS.recipients} recipients`,
      payload_too_large: `Request body is larger than ${SENDING_LIMITS.maxBodyBytes} bytes`,
      conflict: NOT_VERIFIED,
      unavailable: 'The batch could not be queued; nothing was sent, retry',
    },
  }),
  'sending-get': route({
    tag: 'Bulk email',
    summary: "A batch's progress",
    description:
      'Status and counts, growing chunk by chunk (50 recipients at a time), with every rejected or failed recipient ' +
      `and why. Another store's batch answers exactly like a missing one. At most ${SENDING_LIMITS.readsPerSecond} ` +
      'reads per second per store.',
    api: 'sending',
    path: parametersOf(SendBatchPath),
    ok: okAnswer,
    data: ref('BulkEmailBatch', BatchStatus),
    errors: ['not_found', 'rate_limited'],
    errorMessages: { not_found: 'Batch not found' },
  }),
};
