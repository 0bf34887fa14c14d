/**
 * The webhooks the service sends (OpenAPI `webhooks`): one per topic, with the spec's bodies ("Events" → "Topics",
 * "Email events") as the code builds them (`shared/domain/webhooks/payloads.ts`, the import worker, the email-events
 * worker) and the delivery headers, the signature first.
 */
import * as v from 'valibot';
import { MAX_ATTEMPTS } from '#shared/domain/webhooks/delivery.ts';
import type { WebhookTopic } from '#shared/domain/webhooks/topics.ts';
import { ref } from './components.ts';
import type { JsonSchema } from './json-schema.ts';

const str = v.string();
const seconds = v.pipe(v.number(), v.integer(), v.description('Unix epoch seconds'));

const StoreSendingPaused = v.object({
  store_id: v.pipe(str, v.description('The store')),
  paused: v.pipe(v.boolean(), v.description('true: marketing mail is paused from now; false: the pause ended')),
  reason: v.pipe(
    v.nullable(str),
    v.description(
      'Why it is paused, in words a merchant reads (bounce or complaint rate and counts); null when it ended',
    ),
  ),
  timestamp: v.pipe(v.number(), v.description('When the change was seen, epoch seconds')),
});

const BulkOperationsFinish = v.object({
  endpoint: v.picklist(['customers', 'orders', 'products']),
  status: v.picklist(['SUCCESS', 'FAIL']),
});

const customerFields = {
  id: v.pipe(str, v.description("The customer's id on the site (not the service's); empty for a new user")),
  email: str,
  phone: str,
  first_name: str,
  last_name: str,
  city: str,
  gender: str,
  birthdate: str,
  country_code: str,
  created_at: seconds,
};

const CustomerNewsletter = v.object({
  ...customerFields,
  source: v.literal('customer/newsletter'),
  email_marketing_consent: v.object({ state: v.picklist(['subscribed', 'undefined']), updated_at: seconds }),
  sms_marketing_consent: v.object({ state: v.picklist(['subscribed', 'undefined']) }),
});

const formatOneConsent = v.object({
  state: v.picklist(['SUBSCRIBED', 'UNSUBSCRIBED', 'NOT_SUBSCRIBED']),
  updated_at: seconds,
});

const CustomerMarketingFormatOne = v.pipe(
  v.object({ ...customerFields, email_marketing_consent: formatOneConsent, sms_marketing_consent: formatOneConsent }),
  v.title('Format one (direct-API stores)'),
);

const formatTwoConsent = v.object({
  state: v.pipe(v.picklist([0, 1, 2]), v.description('1 subscribed, 2 unsubscribed, 0 not subscribed')),
  updatedAt: seconds,
});

const CustomerMarketingFormatTwo = v.pipe(
  v.object({
    audienceId: v.pipe(str, v.description('Internal audience id')),
    originId: v.pipe(str, v.description('Platform customer id')),
    shopId: v.pipe(str, v.description('Store id')),
    email: str,
    phone: str,
    firstName: str,
    lastName: str,
    city: str,
    gender: str,
    birthDate: str,
    countryCode: str,
    createdAt: seconds,
    updatedAt: seconds,
    emailMarketingConsent: formatTwoConsent,
    smsMarketingConsent: formatTwoConsent,
  }),
  v.title('Format two (platform stores)'),
);

const epochText = v.pipe(str, v.regex(/^\d+$/), v.description('Epoch seconds, as a string'));
const transmissionId = v.pipe(str, v.description('The batch id the sending API answered (`id`)'));

/** Spec "Email events (topic transmission/callback)": `{eventType, eventData}` per event type. */
const EMAIL_EVENTS = {
  delivery: v.object({
    reason: v.null(),
    msg_from: str,
    rcpt_to: str,
    error_code: v.null(),
    transmission_id: transmissionId,
    timestamp: epochText,
  }),
  bounce: v.object({
    reason: str,
    msg_from: str,
    rcpt_to: str,
    error_code: str,
    transmission_id: transmissionId,
    timestamp: epochText,
  }),
  initial_open: v.object({
    msg_from: str,
    rcpt_to: str,
    transmission_id: transmissionId,
    user_agent: str,
    timestamp: epochText,
  }),
  click: v.object({
    msg_from: str,
    rcpt_to: str,
    target_link_url: str,
    transmission_id: transmissionId,
    user_agent: str,
    timestamp: epochText,
  }),
  list_unsubscribe: v.object({ rcpt_to: str, transmission_id: transmissionId }),
} as const;

const emailEventName = (type: string) =>
  `TransmissionCallback${type
    .split('_')
    .map((p) => p.charAt(0).toUpperCase() + p.slice(1))
    .join('')}`;

/** `{eventType, eventData}` per event type; built once, as `ref` names each schema object once. */
const EMAIL_EVENT_BODIES = Object.entries(EMAIL_EVENTS).map(
  ([type, data]) => [type, v.object({ eventType: v.literal(type), eventData: data })] as const,
);

const transmissionCallback = (): JsonSchema => {
  const mapping: Record<string, string> = {};
  const oneOf = EMAIL_EVENT_BODIES.map(([type, body]) => {
    const schema = ref(emailEventName(type), body);
    mapping[type] = schema.$ref as string;
    return schema;
  });
  return { oneOf, discriminator: { propertyName: 'eventType', mapping } } as JsonSchema;
};

const BODIES: Record<WebhookTopic, { summary: string; description: string; schema: () => JsonSchema }> = {
  'bulk_operations/finish': {
    summary: 'A batch import finished',
    description: '`SUCCESS` when at least one line was imported, `FAIL` when none was.',
    schema: () => ref('BulkOperationsFinish', BulkOperationsFinish),
  },
  'customer/newsletter': {
    summary: 'A subscriber was collected by a form',
    description: 'Sent for headless `customers/create`.',
    schema: () => ref('CustomerNewsletter', CustomerNewsletter),
  },
  'customer/marketing': {
    summary: "A customer's email or SMS subscription state changed",
    description: 'Format one for direct-API stores, format two for platform stores (the store type decides).',
    schema: () => ({
      oneOf: [
        ref('CustomerMarketingFormatOne', CustomerMarketingFormatOne),
        ref('CustomerMarketingFormatTwo', CustomerMarketingFormatTwo),
      ],
    }),
  },
  'store/sending_paused': {
    summary: "The sending guard paused the store's marketing mail, or the pause ended (Storeflow's own topic)",
    description:
      'Not in the spec. Sent once per change: when bounces or complaints pause the marketing mail (bulk sends refused, marketing flow emails exit `sending_paused`; transactional mail goes on), and when the pause ends (the rates fell back as days passed, or the operator resumed the store). The event id names the change, so a repeat keeps its delivery id.',
    schema: () => ref('StoreSendingPaused', StoreSendingPaused),
  },
  'transmission/callback': {
    summary: 'An email event (delivery, bounce, open, click, list unsubscribe)',
    description: '`transmission_id` equals the batch id the sending API answered; match it with `rcpt_to`.',
    schema: transmissionCallback,
  },
};

const header = (name: string, description: string, required = true) => ({
  name,
  in: 'header',
  required,
  description,
  schema: { type: 'string' },
});

/** The `webhooks` section: how each topic arrives at the subscribed URL. */
export const webhooksSection = (): Record<string, unknown> =>
  Object.fromEntries(
    (Object.entries(BODIES) as [WebhookTopic, (typeof BODIES)[WebhookTopic]][]).map(([topic, body]) => [
      topic,
      {
        post: {
          tags: ['Webhook deliveries'],
          summary: body.summary,
          description:
            `${body.description}\n\nVerify \`X-Service-hmac-sha256\` before trusting the body: Base64 of ` +
            "HMAC-SHA256 over the exact raw body, keyed with the store's API key (see docs/examples/webhook-receiver.ts).",
          operationId: `webhook${emailEventName(topic.replace('/', '_')).replace('TransmissionCallback', '')}`,
          parameters: [
            header('X-Service-hmac-sha256', 'Base64 HMAC-SHA256 of the raw body, keyed with the store API key'),
            header('X-Service-Topic', `The topic: \`${topic}\``),
            header('X-Service-Webhook-Id', 'The subscription id'),
            header('X-Service-Delivery-Id', 'The same on every retry of one delivery: de-duplicate on it'),
            header('X-Service-Timestamp', "The attempt's time, epoch seconds"),
            header(
              'X-Service-Timestamp-hmac-sha256',
              'Base64 HMAC-SHA256 of `<X-Service-Timestamp>.<raw body>`, keyed with the store API key: refuse a stale timestamp to refuse replays',
            ),
          ],
          requestBody: { required: true, content: { 'application/json': { schema: body.schema() } } },
          responses: {
            '200': { description: 'Received. Only 200 counts.' },
            default: {
              description:
                `Anything else (or no answer within the timeout) is retried: ${MAX_ATTEMPTS - 1} retries, after ` +
                '5, 10, 20, 40 and 80 seconds.',
            },
          },
        },
      },
    ]),
  );
