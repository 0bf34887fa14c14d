/** Campaigns on `{base_url}`, `{code, data}` answers (docs/campaigns.md). */
import { CAMPAIGN_LIMITS, SKIP_REASONS } from '#shared/domain/campaigns/model.ts';
import { ref } from '#shared/http/openapi/components.ts';
import type { JsonSchema } from '#shared/http/openapi/json-schema.ts';
import { route } from '#shared/http/openapi/registry.ts';
import { DATA } from '#shared/http/openapi/shapes.ts';
import { webhooksReply } from '#shared/http/responses.ts';
import { CampaignListQuery, CampaignPath, CampaignRecipientsQuery, parametersOf } from '#shared/http/route-inputs.ts';

const ok = webhooksReply.ok(DATA);
const pace = `At most ${CAMPAIGN_LIMITS.managementPerSecond} calls per second per store.`;
const campaignId = parametersOf(CampaignPath);
const segmentIds = (max: number): JsonSchema => ({
  type: 'array',
  maxItems: max,
  items: { type: 'string', pattern: '^seg_[A-Za-z0-9]{20}$' },
});

const CampaignRequest: JsonSchema = {
  type: 'object',
  required: ['name', 'segments', 'from', 'subject'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 100 },
    segments: { ...segmentIds(CAMPAIGN_LIMITS.segments), minItems: 1, description: 'Send to their members.' },
    excludeSegments: {
      ...segmentIds(CAMPAIGN_LIMITS.excludeSegments),
      description: 'Leave out the members of these segments.',
    },
    from: {
      type: 'object',
      required: ['email', 'name'],
      additionalProperties: false,
      properties: {
        email: { type: 'string', format: 'email', description: 'On a verified sending domain of the store.' },
        name: { type: 'string', maxLength: 256 },
      },
    },
    replyTo: { type: 'string', format: 'email' },
    subject: { type: 'string', minLength: 1, maxLength: 998, description: 'Liquid.' },
    preheader: { type: 'string', maxLength: 500, description: 'Liquid.' },
    html: { type: 'string', description: 'Liquid; html or text is required.' },
    text: { type: 'string', description: 'Liquid; html or text is required.' },
    sendAt: {
      type: 'string',
      format: 'date-time',
      description: `When to send (at most ${CAMPAIGN_LIMITS.scheduleDays} days ahead); absent or past: now.`,
    },
    allowEmptyAudience: {
      type: 'boolean',
      description:
        'Create the campaign even when every segment named has no members (built and empty): without it such a ' +
        'campaign is refused with 422, since it would be sent to nobody. For a segment expected to fill before sendAt.',
    },
  },
};

const progress: JsonSchema = {
  type: 'object',
  required: ['recipients', 'queued', 'skipped', 'deferred', 'sent', 'failed'],
  properties: {
    recipients: { type: 'integer', minimum: 0, description: 'Contacts taken (each once).' },
    queued: {
      type: 'integer',
      minimum: 0,
      description: "Handed to the send path, now or (`deferred`) at the end of the recipient's quiet hours.",
    },
    deferred: {
      type: 'integer',
      minimum: 0,
      description:
        "Of `queued`, held for the recipient's quiet hours and sent when their window opens (docs/smart-sending.md).",
    },
    skipped: { type: 'integer', minimum: 0, description: 'Not sent: see the recipients list for each reason.' },
    sent: { type: 'integer', minimum: 0, description: 'Accepted by SES.' },
    failed: { type: 'integer', minimum: 0, description: 'Refused by SES.' },
  },
};

const campaignProperties = {
  id: { type: 'string', pattern: '^cmp_[A-Za-z0-9]{20}$' },
  name: { type: 'string' },
  status: { type: 'string', enum: ['scheduled', 'sending', 'sent', 'cancelled'] },
  segments: segmentIds(CAMPAIGN_LIMITS.segments),
  excludeSegments: segmentIds(CAMPAIGN_LIMITS.excludeSegments),
  from: { type: 'object', properties: { email: { type: 'string' }, name: { type: 'string' } } },
  replyTo: { type: 'string' },
  subject: { type: 'string' },
  preheader: { type: 'string' },
  html: { type: 'string' },
  text: { type: 'string' },
  sendAt: { type: 'integer', description: 'Epoch seconds.' },
  createdAt: { type: 'integer', description: 'Epoch seconds.' },
  startedAt: { type: 'integer', description: 'Epoch seconds.' },
  cancelledAt: { type: 'integer', description: 'Epoch seconds.' },
  progress,
} satisfies Record<string, JsonSchema>;
const required = ['id', 'name', 'status', 'segments', 'excludeSegments', 'from', 'subject', 'sendAt', 'createdAt'];

const CampaignRecord: JsonSchema = {
  type: 'object',
  required: [...required, 'progress'],
  properties: campaignProperties,
};

const stats: JsonSchema = {
  type: 'object',
  required: ['sent', 'delivered', 'opened', 'clicked', 'bounced', 'unsubscribed', 'orders', 'revenue'],
  properties: {
    sent: { type: 'integer' },
    delivered: { type: 'integer' },
    opened: { type: 'integer' },
    clicked: { type: 'integer' },
    bounced: { type: 'integer' },
    unsubscribed: { type: 'integer' },
    orders: { type: 'integer', description: 'Orders influenced by a click on the campaign (docs/attribution.md).' },
    revenue: {
      type: 'object',
      additionalProperties: { type: 'string' },
      description: 'Their revenue per currency.',
    },
  },
};

const RecipientPage: JsonSchema = {
  type: 'object',
  required: ['list'],
  properties: {
    list: {
      type: 'array',
      items: {
        type: 'object',
        required: ['customerId', 'status'],
        properties: {
          customerId: { type: 'string' },
          email: { type: 'string' },
          status: { type: 'string', enum: ['queued', 'deferred', 'sent', 'failed', 'skipped'] },
          reason: {
            type: 'string',
            enum: [...SKIP_REASONS, 'cancelled', 'quiet_hours'],
            description: 'Why it was skipped; `quiet_hours` for a deferred one.',
          },
          until: {
            type: 'integer',
            description: 'Deferred: when its quiet hours end and it is handed to the send path, epoch seconds.',
          },
          timeZone: { type: 'string', description: "Deferred: the recipient's IANA zone." },
          zoneFrom: {
            type: 'string',
            enum: ['contact', 'country', 'store'],
            description: "Deferred: where the zone came from (the contact's own, its country's, the store's).",
          },
          localTime: {
            type: 'string',
            description: "Deferred: the recipient's clock (HH:MM) when its page was walked.",
          },
          error: { type: 'string', description: "SES's reason (failed)." },
          messageId: { type: 'string' },
          sentAt: { type: 'integer', description: 'Epoch seconds.' },
        },
      },
    },
    nextCursor: { type: 'string', description: 'Absent on the last page.' },
  },
};

const record = () => ref('CampaignRecord', CampaignRecord);
const NOT_FOUND = { not_found: 'Campaign not found' } as const;

export const CAMPAIGN_ROUTES = {
  'campaigns-create': route({
    tag: 'Campaigns',
    summary: 'Create a campaign',
    description:
      'A one-off email to the members of segments (minus those of `excludeSegments`), now or at `sendAt`; each ' +
      'contact is emailed once. Answers 202 with the campaign; the send goes on in the background through the bulk ' +
      `send path (chunks of 50, paced), to subscribed contacts only. ${pace}`,
    api: 'webhooks',
    body: {
      schema: ref('CampaignRequest', CampaignRequest),
      examples: {
        scheduled: {
          name: 'Winter sale',
          segments: ['seg_4kTQ9x0bZr5LmN8pWc2D'],
          from: { email: 'news@shop.example', name: 'Shop' },
          subject: 'Winter sale, {{ contact.first_name }}',
          html: '<p>Hello {{ contact.first_name }}, 20% off all week.</p>',
          sendAt: '2026-12-01T09:00:00Z',
        },
      },
    },
    ok: webhooksReply.accepted(DATA),
    data: record(),
    errors: ['validation', 'payload_too_large', 'unprocessable', 'conflict', 'rate_limited', 'unavailable'],
    errorMessages: {
      validation: 'segments[0] seg_4kTQ9x0bZr5LmN8pWc2D is not a segment of this store',
      unprocessable:
        'The audience is empty: segment seg_4kTQ9x0bZr5LmN8pWc2D has no members, so the campaign would be sent to ' +
        'nobody. Check the segments, or send allowEmptyAudience: true to create it anyway (it goes to the members ' +
        'they have when it starts)',
      conflict: `The store already has ${CAMPAIGN_LIMITS.activePerStore} campaigns scheduled or sending, the most allowed; wait for one to finish or cancel one`,
      unavailable: 'The campaign could not be scheduled; nothing was saved, retry',
    },
  }),
  'campaigns-list': route({
    tag: 'Campaigns',
    summary: 'List campaigns',
    description: `The store's campaigns, newest first, with their progress. ${pace}`,
    api: 'webhooks',
    query: parametersOf(CampaignListQuery),
    ok,
    data: {
      type: 'object',
      required: ['list'],
      properties: { list: { type: 'array', items: record() }, nextCursor: { type: 'string' } },
    },
    errors: ['validation', 'rate_limited'],
  }),
  'campaigns-get': route({
    tag: 'Campaigns',
    summary: 'Read a campaign, its progress and its stats',
    description: `Another store's campaign answers like a missing one. ${pace}`,
    api: 'webhooks',
    path: campaignId,
    ok,
    data: {
      type: 'object',
      required: [...required, 'progress', 'stats'],
      properties: { ...campaignProperties, stats },
    },
    errors: ['not_found', 'rate_limited'],
    errorMessages: NOT_FOUND,
  }),
  'campaigns-cancel': route({
    tag: 'Campaigns',
    summary: 'Cancel a campaign',
    description:
      'Before its time nothing is sent; during the send the chunks not yet sent are not. The answer is the campaign ' +
      `with \`sentBeforeCancel\`. A sent or cancelled campaign answers 409. ${pace}`,
    api: 'webhooks',
    path: campaignId,
    ok,
    data: {
      type: 'object',
      required: [...required, 'progress', 'sentBeforeCancel'],
      properties: { ...campaignProperties, sentBeforeCancel: { type: 'integer', minimum: 0 } },
    },
    errors: ['not_found', 'conflict', 'rate_limited'],
    errorMessages: {
      ...NOT_FOUND,
      conflict: 'The campaign is sent already; only a scheduled or sending campaign can be cancelled',
    },
  }),
  'campaign-recipients': route({
    tag: 'Campaigns',
    summary: "A page of a campaign's recipients and their outcome",
    description:
      `Recipients in customer id order, ${CAMPAIGN_LIMITS.recipientsPage.default} a page by default (at most ` +
      `${CAMPAIGN_LIMITS.recipientsPage.max}). ${pace}`,
    api: 'webhooks',
    path: campaignId,
    query: parametersOf(CampaignRecipientsQuery),
    ok,
    data: ref('CampaignRecipientPage', RecipientPage),
    errors: ['validation', 'not_found', 'rate_limited'],
    errorMessages: {
      ...NOT_FOUND,
      validation: `limit must be an integer from 1 to ${CAMPAIGN_LIMITS.recipientsPage.max}`,
    },
  }),
};
