/**
 * Flow definitions and presets on `{base_url}`, `{code, data}` answers (docs/flows.md). The request schemas are written
 * as JSON Schema here: the validator (`shared/domain/flows/flow-schema.ts`) is recursive (condition groups) and checks
 * templates, which valibot's JSON Schema conversion cannot express.
 */

import { PRESET_KINDS } from '#shared/domain/flows/trigger.ts';
import { ref } from '#shared/http/openapi/components.ts';
import type { JsonSchema } from '#shared/http/openapi/json-schema.ts';
import { route } from '#shared/http/openapi/registry.ts';
import { DATA } from '#shared/http/openapi/shapes.ts';
import { webhooksReply } from '#shared/http/responses.ts';
import { FlowPath, parametersOf } from '#shared/http/route-inputs.ts';
import { LIMITS } from '#shared/limits.ts';
import { components, definitionProperties, email, FlowDefinition, from, kind } from './flow-definition.ts';

const ok = webhooksReply.ok(DATA);
const pace = `At most ${LIMITS.flowManagementPerSecond} calls per second per store.`;
const flowId = parametersOf(FlowPath);

const presetKind: JsonSchema = { type: 'string', enum: [...PRESET_KINDS] };

const PresetRequest: JsonSchema = {
  type: 'object',
  required: ['preset', 'from'],
  additionalProperties: false,
  properties: {
    preset: presetKind,
    from,
    replyTo: email,
    name: definitionProperties.name,
    enabled: definitionProperties.enabled,
  },
};

const FlowRecord: JsonSchema = {
  type: 'object',
  required: ['id', 'name', 'trigger', 'enabled', 'reentry', 'consent', 'steps', 'createdAt', 'updatedAt', 'revision'],
  properties: {
    id: { type: 'string', pattern: '^fl_[A-Za-z0-9]{20}$' },
    ...definitionProperties,
    preset: { ...kind, description: 'The preset the flow was created from.' },
    createdAt: { type: 'integer', description: 'Epoch seconds.' },
    updatedAt: { type: 'integer', description: 'Epoch seconds.' },
    revision: { type: 'integer', minimum: 1 },
  },
};

const PresetList: JsonSchema = {
  type: 'object',
  required: ['list', 'total'],
  properties: {
    list: {
      type: 'array',
      items: {
        type: 'object',
        required: ['preset', 'trigger', 'name', 'description', 'consent', 'reentry', 'steps'],
        properties: {
          preset: presetKind,
          trigger: presetKind,
          name: { type: 'string' },
          description: { type: 'string' },
          consent: { type: 'string' },
          reentry: { $ref: '#/components/schemas/FlowReentry' },
          steps: { type: 'array', items: { type: 'object' } },
        },
      },
    },
    total: { type: 'integer', minimum: 0 },
  },
};

// Registered before the routes that refer to them.
components();
const record = () => ref('FlowRecord', FlowRecord);

const NOT_FOUND = { not_found: 'Flow not found' } as const;

export const FLOW_ROUTES = {
  'flow-presets': route({
    tag: 'Flows',
    summary: 'List the presets',
    description: `One ready flow per trigger kind; create one with \`POST /api/v1/flows {preset, from}\`. ${pace}`,
    api: 'webhooks',
    ok,
    data: ref('FlowPresetList', PresetList),
    errors: ['rate_limited'],
  }),
  'flows-create': route({
    tag: 'Flows',
    summary: 'Create a flow',
    description:
      'A full definition, or `{preset, from}` for the preset of a kind (enabled unless `enabled: false`). ' +
      `At most ${LIMITS.flowsPerStore} flows per store (409 beyond). ${pace}`,
    api: 'webhooks',
    body: {
      schema: {
        anyOf: [ref('FlowDefinition', FlowDefinition), ref('FlowPresetRequest', PresetRequest)],
      },
      examples: {
        preset: { preset: 'abandoned_cart', from: { email: 'shop@acme.example', name: 'Acme' } },
        definition: {
          name: 'Gold members',
          trigger: 'custom_notification',
          entry: { match: 'all', conditions: [{ field: 'custom.level', op: 'equals', value: 'gold' }] },
          steps: [
            {
              type: 'email',
              from: { email: 'shop@acme.example' },
              subject: 'Hi {{ contact.first_name }}',
              text: 'Hello',
            },
          ],
        },
      },
    },
    ok,
    data: record(),
    errors: ['validation', 'payload_too_large', 'conflict', 'rate_limited'],
    errorMessages: {
      validation: 'steps[0].seconds must be at least 60',
      conflict: `The store already has ${LIMITS.flowsPerStore} flows, the most allowed; delete one first`,
    },
  }),
  'flows-list': route({
    tag: 'Flows',
    summary: 'List flows',
    description: `The store's flows, oldest first. ${pace}`,
    api: 'webhooks',
    ok,
    data: {
      type: 'object',
      required: ['list', 'total'],
      properties: { list: { type: 'array', items: record() }, total: { type: 'integer', minimum: 0 } },
    },
    errors: ['rate_limited'],
  }),
  'flows-get': route({
    tag: 'Flows',
    summary: 'Read a flow',
    description: `Another store's flow answers like a missing one. ${pace}`,
    api: 'webhooks',
    path: flowId,
    ok,
    data: record(),
    errors: ['not_found', 'rate_limited'],
    errorMessages: NOT_FOUND,
  }),
  'flows-update': route({
    tag: 'Flows',
    summary: 'Replace a flow',
    description:
      'Full replace (missing fields take their defaults). With `revision`, only if the flow is still at that ' +
      `revision (409 otherwise). ${pace}`,
    api: 'webhooks',
    path: flowId,
    body: ref('FlowDefinition', FlowDefinition),
    ok,
    data: record(),
    errors: ['validation', 'payload_too_large', 'not_found', 'conflict', 'rate_limited'],
    errorMessages: {
      ...NOT_FOUND,
      conflict:
        'The flow is at revision 3, not at revision 2: it was changed meanwhile; GET it and apply your change again',
    },
  }),
  'flows-delete': route({
    tag: 'Flows',
    summary: 'Delete a flow',
    description: pace,
    api: 'webhooks',
    path: flowId,
    ok,
    data: { type: 'boolean', const: true },
    errors: ['not_found', 'rate_limited'],
    errorMessages: NOT_FOUND,
  }),
};
