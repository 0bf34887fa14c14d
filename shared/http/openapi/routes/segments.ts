/**
 * Segments on `{base_url}`, `{code, data}` answers (docs/segments.md). Conditions are the flows' condition groups
 * (the `FlowConditionGroup` component), limited to the fields a segment reads.
 */
import { SEGMENT_FIELDS } from '#shared/domain/segments/facts.ts';
import { SEGMENT_MEMBERS_PAGE } from '#shared/domain/segments/manage-segments.ts';
import { SEGMENT_NAME_MAX_CHARS } from '#shared/domain/segments/segment-schema.ts';
import { ref } from '#shared/http/openapi/components.ts';
import type { JsonSchema } from '#shared/http/openapi/json-schema.ts';
import { route } from '#shared/http/openapi/registry.ts';
import { DATA } from '#shared/http/openapi/shapes.ts';
import { webhooksReply } from '#shared/http/responses.ts';
import { parametersOf, SegmentMembersQuery, SegmentPath } from '#shared/http/route-inputs.ts';
import { LIMITS } from '#shared/limits.ts';

const ok = webhooksReply.ok(DATA);
const pace = `At most ${LIMITS.segmentManagementPerSecond} calls per second per store.`;
const segmentId = parametersOf(SegmentPath);

const conditions: JsonSchema = {
  $ref: '#/components/schemas/FlowConditionGroup',
  description:
    `The flows' condition group, at most ${LIMITS.conditionsPerSegment} conditions in all. Fields: ` +
    `${SEGMENT_FIELDS.join(', ')} and contact.attributes.<path>. The activity.days_since_* fields are whole days ` +
    '(absent when it never happened): "ordered in the last 30 days" is `activity.days_since_last_order less_than 30`.',
};

const definitionProperties = {
  name: { type: 'string', minLength: 1, maxLength: SEGMENT_NAME_MAX_CHARS, pattern: '^[^\\u0000-\\u001f\\u007f]*$' },
  conditions,
} satisfies Record<string, JsonSchema>;

const SegmentDefinition: JsonSchema = {
  type: 'object',
  required: ['name', 'conditions'],
  additionalProperties: false,
  properties: {
    ...definitionProperties,
    revision: {
      type: 'integer',
      minimum: 1,
      description: 'PUT only: replace only if the segment is still at this revision.',
    },
    id: { description: 'Read-only: ignored.' },
    status: { description: 'Read-only: ignored.' },
    count: { description: 'Read-only: ignored.' },
    build: { description: 'Read-only: ignored.' },
    createdAt: { description: 'Read-only: ignored.' },
    updatedAt: { description: 'Read-only: ignored.' },
  },
};

const SegmentRecord: JsonSchema = {
  type: 'object',
  required: ['id', 'name', 'conditions', 'status', 'count', 'build', 'createdAt', 'updatedAt', 'revision'],
  properties: {
    id: { type: 'string', pattern: '^seg_[A-Za-z0-9]{20}$' },
    ...definitionProperties,
    status: {
      type: 'string',
      enum: ['building', 'ready'],
      description: '`building` while the background pass computes the membership of this revision; then `ready`.',
    },
    count: { type: 'integer', minimum: 0, description: 'Members now (kept live by each entry and exit).' },
    build: {
      type: 'object',
      required: ['scanned', 'startedAt'],
      properties: {
        scanned: { type: 'integer', minimum: 0, description: 'Contacts the build evaluated so far.' },
        startedAt: { type: 'integer', description: 'Epoch seconds.' },
        finishedAt: { type: 'integer', description: 'Epoch seconds (once ready).' },
      },
    },
    createdAt: { type: 'integer', description: 'Epoch seconds.' },
    updatedAt: { type: 'integer', description: 'Epoch seconds.' },
    revision: { type: 'integer', minimum: 1 },
  },
};

const MemberPage: JsonSchema = {
  type: 'object',
  required: ['list'],
  properties: {
    list: {
      type: 'array',
      items: {
        type: 'object',
        required: ['customerId', 'enteredAt'],
        properties: {
          customerId: { type: 'string', description: "The customer's id in the store's system." },
          email: { type: 'string', description: 'The address when the contact entered, lower case.' },
          enteredAt: { type: 'integer', description: 'Epoch seconds.' },
        },
      },
    },
    nextCursor: { type: 'string', description: 'Absent on the last page.' },
  },
};

const record = () => ref('SegmentRecord', SegmentRecord);
const NOT_FOUND = { not_found: 'Segment not found' } as const;

export const SEGMENT_ROUTES = {
  'segments-create': route({
    tag: 'Segments',
    summary: 'Create a segment',
    description:
      'Answers at once with `status: building`; the membership is computed in the background and kept current by ' +
      `events from then on. At most ${LIMITS.segmentsPerStore} segments per store (409 beyond). ${pace}`,
    api: 'webhooks',
    body: {
      schema: ref('SegmentDefinition', SegmentDefinition),
      examples: {
        recentBuyers: {
          name: 'Bought in the last 30 days',
          conditions: {
            match: 'all',
            conditions: [
              { field: 'activity.days_since_last_order', op: 'less_than', value: 30 },
              { field: 'contact.email_consent', op: 'equals', value: 'subscribed' },
            ],
          },
        },
      },
    },
    ok,
    data: record(),
    errors: ['validation', 'payload_too_large', 'conflict', 'rate_limited'],
    errorMessages: {
      validation: 'conditions.conditions[0].field event.total is not a segment field: …',
      conflict: `The store already has ${LIMITS.segmentsPerStore} segments, the most allowed; delete one first`,
    },
  }),
  'segments-list': route({
    tag: 'Segments',
    summary: 'List segments',
    description: `The store's segments with their live counts, oldest first. ${pace}`,
    api: 'webhooks',
    ok,
    data: {
      type: 'object',
      required: ['list', 'total'],
      properties: { list: { type: 'array', items: record() }, total: { type: 'integer', minimum: 0 } },
    },
    errors: ['rate_limited'],
  }),
  'segments-get': route({
    tag: 'Segments',
    summary: 'Read a segment and its live count',
    description: `Another store's segment answers like a missing one. ${pace}`,
    api: 'webhooks',
    path: segmentId,
    ok,
    data: record(),
    errors: ['not_found', 'rate_limited'],
    errorMessages: NOT_FOUND,
  }),
  'segments-update': route({
    tag: 'Segments',
    summary: 'Replace a segment',
    description:
      'Full replace of name and conditions; changed conditions build the membership again (`status: building`). ' +
      `With \`revision\`, only if the segment is still at that revision (409 otherwise). ${pace}`,
    api: 'webhooks',
    path: segmentId,
    body: ref('SegmentDefinition', SegmentDefinition),
    ok,
    data: record(),
    errors: ['validation', 'payload_too_large', 'not_found', 'conflict', 'rate_limited'],
    errorMessages: {
      ...NOT_FOUND,
      conflict:
        'The segment is at revision 3, not at revision 2: it was changed meanwhile; GET it and apply your change again',
    },
  }),
  'segments-delete': route({
    tag: 'Segments',
    summary: 'Delete a segment',
    description: `Its members are removed in the background. ${pace}`,
    api: 'webhooks',
    path: segmentId,
    ok,
    data: { type: 'boolean', const: true },
    errors: ['not_found', 'rate_limited'],
    errorMessages: NOT_FOUND,
  }),
  'segment-members': route({
    tag: 'Segments',
    summary: "A page of a segment's members",
    description:
      `Members in customer id order, ${SEGMENT_MEMBERS_PAGE.default} a page by default (at most ` +
      `${SEGMENT_MEMBERS_PAGE.max}); follow \`nextCursor\` until it is absent to walk them all. ${pace}`,
    api: 'webhooks',
    path: segmentId,
    query: parametersOf(SegmentMembersQuery),
    ok,
    data: ref('SegmentMemberPage', MemberPage),
    errors: ['validation', 'not_found', 'rate_limited'],
    errorMessages: { ...NOT_FOUND, validation: `limit must be an integer from 1 to ${SEGMENT_MEMBERS_PAGE.max}` },
  }),
};
