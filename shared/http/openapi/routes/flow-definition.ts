/**
 * The flow definition's request schema as JSON Schema (docs/flows.md), for the flow routes (routes/flows.ts): written
 * by hand because the validator (`shared/domain/flows/flow-schema.ts`) is recursive (condition groups) and checks
 * templates, which valibot's JSON Schema conversion cannot express.
 */

import { CONDITION_OPERATORS } from '#shared/domain/flows/flow.ts';
import { FLOW_RULES } from '#shared/domain/flows/flow-rules.ts';
import { FLOW_KINDS } from '#shared/domain/flows/trigger.ts';
import { ref } from '#shared/http/openapi/components.ts';
import type { JsonSchema } from '#shared/http/openapi/json-schema.ts';

export const kind: JsonSchema = { type: 'string', enum: [...FLOW_KINDS] };
const oneLine = (maxLength: number): JsonSchema => ({
  type: 'string',
  maxLength,
  pattern: '^[^\\u0000-\\u001f\\u007f]*$',
});
const stepId: JsonSchema = { type: 'string', pattern: '^[A-Za-z0-9_-]+$', maxLength: FLOW_RULES.stepIdMaxChars };
export const email: JsonSchema = { type: 'string', format: 'email', maxLength: 254 };

const condition: JsonSchema = {
  type: 'object',
  description:
    '`value` is absent for exists/not_exists, a number for greater_than/less_than, a string or number for contains, ' +
    'a string, number or boolean for equals/not_equals.',
  required: ['field', 'op'],
  additionalProperties: false,
  properties: {
    field: {
      type: 'string',
      maxLength: FLOW_RULES.fieldMaxChars,
      pattern: '^(event|contact|custom|activity)\\.[A-Za-z0-9_]+(\\.[A-Za-z0-9_]+)*$',
    },
    op: { type: 'string', enum: [...CONDITION_OPERATORS] },
    value: { type: ['string', 'number', 'boolean'] },
  },
};

const group: JsonSchema = {
  type: 'object',
  description: `Conditions and nested groups (at most ${FLOW_RULES.groupDepth} levels, counting this one).`,
  required: ['match', 'conditions'],
  additionalProperties: false,
  properties: {
    match: { type: 'string', enum: ['all', 'any'] },
    conditions: {
      type: 'array',
      minItems: 1,
      maxItems: FLOW_RULES.conditionsPerGroup,
      items: {
        anyOf: [{ $ref: '#/components/schemas/FlowCondition' }, { $ref: '#/components/schemas/FlowConditionGroup' }],
      },
    },
  },
};

const reentry: JsonSchema = {
  oneOf: [
    {
      type: 'object',
      required: ['type'],
      additionalProperties: false,
      properties: { type: { const: 'once_per_contact' } },
    },
    {
      type: 'object',
      required: ['type'],
      additionalProperties: false,
      properties: { type: { const: 'once_per_subject' } },
    },
    {
      type: 'object',
      required: ['type', 'seconds'],
      additionalProperties: false,
      properties: {
        type: { const: 'cooldown' },
        seconds: { type: 'integer', minimum: FLOW_RULES.cooldownSeconds.min, maximum: FLOW_RULES.cooldownSeconds.max },
      },
    },
  ],
};

/** The sender of a flow's emails (an email step's, a preset request's). */
export const from: JsonSchema = {
  type: 'object',
  required: ['email'],
  additionalProperties: false,
  properties: { email, name: oneLine(FLOW_RULES.fromNameMaxChars) },
};

/** A step inside a split's branch: a wait, an email or an exit (splits do not nest). */
const branchStep: JsonSchema = {
  oneOf: [
    {
      type: 'object',
      required: ['type', 'seconds'],
      additionalProperties: false,
      properties: {
        type: { const: 'wait' },
        id: stepId,
        seconds: { type: 'integer', minimum: FLOW_RULES.waitSeconds.min, maximum: FLOW_RULES.waitSeconds.max },
      },
    },
    {
      type: 'object',
      description: 'subject, preheader, html and text are LiquidJS templates; at least one of html and text.',
      required: ['type', 'from', 'subject'],
      additionalProperties: false,
      properties: {
        type: { const: 'email' },
        id: stepId,
        from,
        replyTo: email,
        subject: { ...oneLine(FLOW_RULES.subjectMaxChars), minLength: 1 },
        preheader: oneLine(FLOW_RULES.preheaderMaxChars),
        html: { type: 'string', minLength: 1 },
        text: { type: 'string', minLength: 1 },
      },
      anyOf: [{ required: ['html'] }, { required: ['text'] }],
    },
    {
      type: 'object',
      required: ['type', 'condition'],
      additionalProperties: false,
      properties: {
        type: { const: 'exit_if' },
        id: stepId,
        condition: { $ref: '#/components/schemas/FlowConditionGroup' },
      },
    },
  ],
};

const split: JsonSchema = {
  type: 'object',
  description:
    "An A/B split: each run takes one branch, chosen by a hash of (flow, split id, contact address), so a contact always takes the same branch. Percents are whole and add up to 100. The flow's last step: a branch holds the rest of its runs. Step ids are unique across the flow, branches included; a branch step without an id gets `<branch id>-<position>`.",
  required: ['type', 'branches'],
  additionalProperties: false,
  properties: {
    type: { const: 'split' },
    id: stepId,
    branches: {
      type: 'array',
      minItems: FLOW_RULES.split.branches.min,
      maxItems: FLOW_RULES.split.branches.max,
      items: {
        type: 'object',
        required: ['id', 'percent', 'steps'],
        additionalProperties: false,
        properties: {
          id: { ...stepId, not: { const: 'holdout' } },
          percent: {
            type: 'integer',
            minimum: FLOW_RULES.split.branchPercent.min,
            maximum: FLOW_RULES.split.branchPercent.max,
          },
          steps: {
            type: 'array',
            minItems: 1,
            maxItems: FLOW_RULES.steps.max,
            items: { $ref: '#/components/schemas/FlowBranchStep' },
          },
        },
      },
    },
  },
};

const step: JsonSchema = { oneOf: [...(branchStep.oneOf as JsonSchema[]), split] };

export const definitionProperties = {
  name: { ...oneLine(FLOW_RULES.nameMaxChars), minLength: 1 },
  trigger: kind,
  enabled: { type: 'boolean', default: true },
  entry: { anyOf: [{ $ref: '#/components/schemas/FlowConditionGroup' }, { type: 'null' }] },
  segmentId: {
    type: 'string',
    pattern: '^[A-Za-z0-9_-]+$',
    maxLength: 64,
    description:
      'Required for segment_entered and segment_exited (a segment of the store, `seg_…`), refused for other kinds.',
  },
  reentry: { $ref: '#/components/schemas/FlowReentry' },
  consent: { type: 'string', enum: ['subscribed', 'not_unsubscribed', 'transactional'] },
  holdoutPercent: {
    type: 'integer',
    minimum: FLOW_RULES.holdoutPercent.min,
    maximum: FLOW_RULES.holdoutPercent.max,
    default: 0,
    description:
      'Percent of entering runs held out: they enter, are recorded (explain: exited, reason holdout) and measured, and are never mailed. Chosen by a hash of (flow, contact address).',
  },
  onFrequencyCap: {
    type: 'string',
    enum: ['skip', 'wait'],
    default: 'skip',
    description:
      "When the store's frequency cap (PUT /api/v1/settings/sending) holds back a marketing email of the flow: `skip` ends the run (explain: exited, reason frequency_cap); `wait` defers the email until the cap allows it (explain: a `deferred` event, reason frequency_cap), for at most 7 days.",
  },
  steps: {
    type: 'array',
    minItems: FLOW_RULES.steps.min,
    maxItems: FLOW_RULES.steps.max,
    items: { $ref: '#/components/schemas/FlowStep' },
  },
} satisfies Record<string, JsonSchema>;

/** The components the definition refers to (registered once, by name). */
export const components = () => {
  ref('FlowCondition', condition);
  ref('FlowConditionGroup', group);
  ref('FlowReentry', reentry);
  ref('FlowBranchStep', branchStep);
  ref('FlowStep', step);
};

export const FlowDefinition: JsonSchema = {
  type: 'object',
  required: ['name', 'trigger', 'steps'],
  properties: {
    ...definitionProperties,
    revision: {
      type: 'integer',
      minimum: 1,
      description: 'PUT only: replace only if the flow is still at this revision.',
    },
    segment_id: { type: 'string', description: 'The same as segmentId (either may be given).' },
    id: { description: 'Read-only: ignored.' },
    preset: { description: 'Read-only: ignored when steps are given.' },
    createdAt: { description: 'Read-only: ignored.' },
    updatedAt: { description: 'Read-only: ignored.' },
  },
  additionalProperties: false,
};
