/**
 * The flow definition as the API accepts it (`POST`/`PUT /api/v1/flows`), with messages that read after a field path
 * (`steps[1].seconds must be at least 60`). What the schema cannot say — templates that parse, the consent a trigger
 * kind allows, unique step ids — is checked by `parseFlowDefinition` with the same message style.
 */
import * as v from 'valibot';
import { parseOrThrow } from '#shared/domain/validation.ts';
import { validationError } from '#shared/errors.ts';
import {
  CONDITION_OPERATORS,
  type ConditionGroup,
  type ConsentRequirement,
  type Flow,
  type FlowStep,
  type ReentryPolicy,
} from './flow.ts';
import { SAFE_ID } from './flow-id.ts';
import { validateTemplates } from './render.ts';
import { FLOW_KINDS, type FlowKind, isSegmentKind, PRESET_KINDS } from './trigger.ts';

/** What a definition sets; the service sets the rest (store, id, times, revision, preset). */
export type FlowDefinition = Omit<Flow, 'storeId' | 'id' | 'createdAt' | 'updatedAt' | 'revision' | 'preset'>;

export const FLOW_RULES = {
  nameMaxChars: 100,
  steps: { min: 1, max: 20 },
  /** Wait steps: one minute to 90 days (EventBridge Scheduler `at()` schedules; longer is not a flow, it is a campaign). */
  waitSeconds: { min: 60, max: 90 * 24 * 3600 },
  /** Re-entry cool-down: one minute to one year. */
  cooldownSeconds: { min: 60, max: 365 * 24 * 3600 },
  /** Condition groups nest at most this deep (the entry group is level 1). */
  groupDepth: 3,
  conditionsPerGroup: 20,
  fieldMaxChars: 200,
  valueMaxChars: 500,
  subjectMaxChars: 500,
  preheaderMaxChars: 500,
  fromNameMaxChars: 100,
  stepIdMaxChars: 40,
} as const;

/** Condition fields: a root (`event`, `contact`, `custom`, `activity`) and a dotted path. */
export const CONDITION_FIELD = /^(event|contact|custom|activity)\.[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$/;

/**
 * Marketing kinds mail only with consent (`subscribed` by default, `not_unsubscribed` on request); the kinds whose
 * messages the customer asked for (an order, a restock notice) default to `transactional`. A custom notification may be
 * either, so the merchant decides; it defaults to the safe side, `subscribed`.
 */
export const DEFAULT_CONSENT: Record<FlowKind, ConsentRequirement> = {
  customer_created: 'subscribed',
  subscription_welcome: 'subscribed',
  abandoned_cart: 'subscribed',
  checkout_recovery: 'subscribed',
  browse_recovery: 'subscribed',
  order_paid: 'transactional',
  order_fulfilled: 'transactional',
  order_status_changed: 'transactional',
  order_refunded: 'transactional',
  back_in_stock: 'transactional',
  custom_notification: 'subscribed',
  segment_entered: 'subscribed',
  segment_exited: 'subscribed',
};

/** Kinds that may be `transactional`: the customer asked for these messages. Recovery and welcome mail is marketing. */
export const TRANSACTIONAL_KINDS: ReadonlySet<FlowKind> = new Set([
  'order_paid',
  'order_fulfilled',
  'order_status_changed',
  'order_refunded',
  'back_in_stock',
  'custom_notification',
]);

/**
 * Re-entry when the definition gives none. The engine keys `once_per_subject` by the subject alone, so it fits kinds
 * whose subject belongs to one person (a cart, a checkout, an order); kinds whose subject is shared (a product, the
 * flow itself for `flow/notify`) or that repeat for one order (status changes) use a cool-down per contact instead.
 */
export const DEFAULT_REENTRY: Record<FlowKind, ReentryPolicy> = {
  customer_created: { type: 'once_per_contact' },
  subscription_welcome: { type: 'once_per_contact' },
  abandoned_cart: { type: 'once_per_subject' },
  checkout_recovery: { type: 'once_per_subject' },
  browse_recovery: { type: 'cooldown', seconds: 7 * 24 * 3600 },
  order_paid: { type: 'once_per_subject' },
  order_fulfilled: { type: 'once_per_subject' },
  order_status_changed: { type: 'cooldown', seconds: 60 },
  order_refunded: { type: 'once_per_subject' },
  back_in_stock: { type: 'cooldown', seconds: 60 },
  custom_notification: { type: 'cooldown', seconds: 60 },
  // A contact enters a segment flow the first time they join (or leave) its segment, as the hosted tools do; a
  // cool-down lets them in again on a later change.
  segment_entered: { type: 'once_per_contact' },
  segment_exited: { type: 'once_per_contact' },
};

// ---- field schemas ---------------------------------------------------------------------------------------------------

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** An object of known fields: an unknown one (often a typo, `exitIf`) is named instead of silently dropped. */
export const known = <E extends v.ObjectEntries>(entries: E, ignored: readonly string[] = []) =>
  v.pipe(
    v.looseObject(entries, 'must be an object'),
    v.rawCheck(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      for (const key of Object.keys(dataset.value)) {
        if (!(key in entries) && !ignored.includes(key)) addIssue({ message: `has an unknown field "${key}"` });
      }
    }),
    // Drop ignored and unknown keys from the output (looseObject keeps them).
    v.transform(
      (value) =>
        Object.fromEntries(
          Object.keys(entries).flatMap((key) => (key in value ? [[key, (value as Record<string, unknown>)[key]]] : [])),
        ) as v.InferOutput<v.ObjectSchema<E, undefined>>,
    ),
  );

// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point.
const CONTROL = /[\u0000-\u001f\u007f]/;

/** One line of text: CR/LF in a header field would let it write other headers. */
export const line = (max: number) =>
  v.pipe(
    v.string('must be a string'),
    v.check((text) => !CONTROL.test(text), 'must be one line without control characters (CR, LF, tab…)'),
    v.maxLength(max, `must be at most ${max} characters`),
  );

const email = () =>
  v.pipe(
    v.string('must be a string'),
    v.trim(),
    v.toLowerCase(),
    v.maxLength(254, 'must be at most 254 characters'),
    v.email('must be an email address'),
  );

const integerBetween = (min: number, max: number) =>
  v.pipe(
    v.number('must be a number'),
    v.integer('must be an integer'),
    v.minValue(min, `must be at least ${min}`),
    v.maxValue(max, `must be at most ${max}`),
  );

const stepId = () =>
  v.pipe(
    v.string('must be a string'),
    v.regex(SAFE_ID, 'must use only letters, digits, "_" and "-"'),
    v.maxLength(FLOW_RULES.stepIdMaxChars, `must be at most ${FLOW_RULES.stepIdMaxChars} characters`),
  );

const valueRule = (condition: { op: string; value?: unknown }): string | undefined => {
  const { op, value } = condition;
  if (op === 'exists' || op === 'not_exists') return value === undefined ? undefined : `must be absent for ${op}`;
  if (value === undefined) return `is required for ${op}`;
  if (op === 'greater_than' || op === 'less_than') {
    return typeof value === 'number' && Number.isFinite(value) ? undefined : `must be a number for ${op}`;
  }
  if (op === 'contains')
    return typeof value === 'string' || typeof value === 'number'
      ? undefined
      : 'must be a string or a number for contains';
  return ['string', 'number', 'boolean'].includes(typeof value)
    ? undefined
    : `must be a string, a number or a boolean for ${op}`;
};

const ConditionSchema = v.pipe(
  known({
    field: v.pipe(
      v.string('must be a string'),
      v.maxLength(FLOW_RULES.fieldMaxChars, `must be at most ${FLOW_RULES.fieldMaxChars} characters`),
      v.regex(
        CONDITION_FIELD,
        'must be event.…, contact.…, custom.… or activity.… followed by a dotted path of letters, digits and "_"',
      ),
    ),
    op: v.picklist(CONDITION_OPERATORS, `must be one of: ${CONDITION_OPERATORS.join(', ')}`),
    value: v.optional(
      v.union(
        [
          v.pipe(
            v.string(),
            v.maxLength(FLOW_RULES.valueMaxChars, `must be at most ${FLOW_RULES.valueMaxChars} characters`),
          ),
          v.pipe(v.number(), v.finite()),
          v.boolean(),
        ],
        'must be a string, a number or a boolean',
      ),
    ),
  }),
  v.forward(
    v.rawCheck(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      const problem = valueRule(dataset.value);
      if (problem) addIssue({ message: problem });
    }),
    ['value'],
  ),
);

/**
 * A group at nesting `depth` (1: the top group); deeper groups than `FLOW_RULES.groupDepth` are refused. Segments
 * (`shared/domain/segments/`) take their conditions through `groupAt(1)` too: one condition language.
 */
const groupSchemas = new Map<number, v.GenericSchema<unknown, ConditionGroup>>();
export const groupAt = (depth: number): v.GenericSchema<unknown, ConditionGroup> => {
  const cached = groupSchemas.get(depth);
  if (cached) return cached;
  const member = v.lazy((input: unknown) => {
    if (!(isRecord(input) && 'match' in input)) return ConditionSchema;
    if (depth >= FLOW_RULES.groupDepth) {
      return v.custom<never>(() => false, `nests groups deeper than ${FLOW_RULES.groupDepth} levels`);
    }
    return groupAt(depth + 1);
  });
  const schema = known({
    match: v.picklist(['all', 'any'], 'must be "all" or "any"'),
    conditions: v.pipe(
      v.array(member, 'must be an array'),
      v.minLength(1, 'must have at least one condition'),
      v.maxLength(FLOW_RULES.conditionsPerGroup, `must have at most ${FLOW_RULES.conditionsPerGroup} conditions`),
    ),
  }) as unknown as v.GenericSchema<unknown, ConditionGroup>;
  groupSchemas.set(depth, schema);
  return schema;
};

const ReentrySchema = v.variant(
  'type',
  [
    known({ type: v.literal('once_per_contact') }),
    known({ type: v.literal('once_per_subject') }),
    known({
      type: v.literal('cooldown'),
      seconds: integerBetween(FLOW_RULES.cooldownSeconds.min, FLOW_RULES.cooldownSeconds.max),
    }),
  ],
  'must be one of: once_per_contact, once_per_subject, cooldown',
);

const WaitStep = known({
  type: v.literal('wait'),
  id: v.optional(stepId()),
  seconds: integerBetween(FLOW_RULES.waitSeconds.min, FLOW_RULES.waitSeconds.max),
});

const EmailStep = v.pipe(
  known({
    type: v.literal('email'),
    id: v.optional(stepId()),
    from: known({
      email: email(),
      name: v.optional(line(FLOW_RULES.fromNameMaxChars)),
    }),
    replyTo: v.optional(email()),
    subject: v.pipe(
      line(FLOW_RULES.subjectMaxChars),
      v.check((text) => text.trim() !== '', 'must not be empty'),
    ),
    preheader: v.optional(line(FLOW_RULES.preheaderMaxChars)),
    html: v.optional(v.pipe(v.string('must be a string'), v.nonEmpty('must not be empty'))),
    text: v.optional(v.pipe(v.string('must be a string'), v.nonEmpty('must not be empty'))),
  }),
  v.check((step) => step.html !== undefined || step.text !== undefined, 'needs html, text or both'),
);

const ExitStep = known({
  type: v.literal('exit_if'),
  id: v.optional(stepId()),
  condition: groupAt(1),
});

const StepSchema = v.variant('type', [WaitStep, EmailStep, ExitStep], 'must be one of: wait, email, exit_if');

const segmentIdSchema = () =>
  v.pipe(
    v.string('must be a string'),
    v.regex(SAFE_ID, 'must be a segment id (letters, digits, "_" and "-")'),
    v.maxLength(64, 'must be at most 64 characters'),
  );

/** Read-only fields of a flow record: a client may send back what `GET` answered; they are ignored. */
const READ_ONLY = ['id', 'preset', 'createdAt', 'updatedAt'];

/** A full definition (`POST`, `PUT`); exported for the API description. */
export const FlowDefinitionSchema = known(
  {
    name: v.pipe(line(FLOW_RULES.nameMaxChars), v.trim(), v.nonEmpty('must not be empty')),
    trigger: v.picklist(FLOW_KINDS, `must be one of: ${FLOW_KINDS.join(', ')}`),
    enabled: v.optional(v.boolean('must be true or false')),
    entry: v.optional(v.nullable(groupAt(1))),
    /** `segment_entered` / `segment_exited`: the segment (`seg_…`); `segment_id` is accepted for it too. */
    segmentId: v.optional(segmentIdSchema()),
    segment_id: v.optional(segmentIdSchema()),
    reentry: v.optional(ReentrySchema),
    consent: v.optional(
      v.picklist(
        ['subscribed', 'not_unsubscribed', 'transactional'],
        'must be one of: subscribed, not_unsubscribed, transactional',
      ),
    ),
    steps: v.pipe(
      v.array(StepSchema, 'must be an array'),
      v.minLength(FLOW_RULES.steps.min, `must have at least ${FLOW_RULES.steps.min} step`),
      v.maxLength(FLOW_RULES.steps.max, `must have at most ${FLOW_RULES.steps.max} steps`),
    ),
    /** `PUT` only: the revision the change was made on (optimistic concurrency). */
    revision: v.optional(integerBetween(1, Number.MAX_SAFE_INTEGER)),
  },
  READ_ONLY,
);

/** The body of a create-from-preset request; exported for the API description. */
export const PresetRequestSchema = known({
  preset: v.picklist(PRESET_KINDS, `must be one of: ${PRESET_KINDS.join(', ')}`),
  from: known({ email: email(), name: v.optional(line(FLOW_RULES.fromNameMaxChars)) }),
  replyTo: v.optional(email()),
  name: v.optional(v.pipe(line(FLOW_RULES.nameMaxChars), v.trim(), v.nonEmpty('must not be empty'))),
  enabled: v.optional(v.boolean('must be true or false')),
});
export type PresetRequest = v.InferOutput<typeof PresetRequestSchema>;

const parse = <S extends v.GenericSchema>(schema: S, input: unknown): v.InferOutput<S> => {
  if (!isRecord(input)) throw validationError('body must be a JSON object');
  return parseOrThrow(schema, input);
};

const withoutUndefined = <T extends object>(record: T): T =>
  Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)) as T;

/** Steps with ids: the given ones, and `step-<n>` (its 1-based position) for the others; ids must be unique. */
const withStepIds = (steps: readonly (Omit<FlowStep, 'id'> & { id?: string | undefined })[]): FlowStep[] => {
  const seen = new Set<string>();
  return steps.map((step, index) => {
    const id = step.id ?? `step-${index + 1}`;
    if (seen.has(id)) throw validationError(`steps[${index}].id "${id}" is used by an earlier step`);
    seen.add(id);
    return withoutUndefined({ ...step, id }) as FlowStep;
  });
};

/** Checks what the schema cannot: at least one email, templates that parse, consent the kind allows. */
const checkDefinition = (definition: FlowDefinition): FlowDefinition => {
  if (!definition.steps.some((step) => step.type === 'email')) {
    throw validationError('steps must contain at least one email step');
  }
  definition.steps.forEach((step, index) => {
    if (step.type === 'email') validateTemplates(step, `steps[${index}]`);
  });
  if (isSegmentKind(definition.trigger)) {
    if (definition.segmentId === undefined) {
      throw validationError(
        `segmentId is required for ${definition.trigger}: the segment whose changes start the flow`,
      );
    }
    if (definition.reentry.type === 'once_per_subject') {
      throw validationError(
        `reentry once_per_subject would let one contact in per segment; ${definition.trigger} takes once_per_contact or cooldown`,
      );
    }
  } else if (definition.segmentId !== undefined) {
    throw validationError(`segmentId is only for segment_entered and segment_exited, not ${definition.trigger}`);
  }
  if (definition.consent === 'transactional' && !TRANSACTIONAL_KINDS.has(definition.trigger)) {
    throw validationError(
      `consent transactional is only for ${[...TRANSACTIONAL_KINDS].join(', ')}; ${definition.trigger} is marketing (use subscribed or not_unsubscribed)`,
    );
  }
  return definition;
};

/** A full definition from a request body; defaults: enabled, and the kind's consent and re-entry. */
export const parseFlowDefinition = (body: unknown): { definition: FlowDefinition; revision?: number } => {
  const parsed = parse(FlowDefinitionSchema, body);
  const definition = checkDefinition(
    withoutUndefined({
      name: parsed.name,
      trigger: parsed.trigger,
      enabled: parsed.enabled ?? true,
      entry: parsed.entry ?? undefined,
      segmentId: parsed.segmentId ?? parsed.segment_id,
      reentry: (parsed.reentry ?? DEFAULT_REENTRY[parsed.trigger]) as ReentryPolicy,
      consent: parsed.consent ?? DEFAULT_CONSENT[parsed.trigger],
      steps: withStepIds(parsed.steps as unknown as FlowStep[]),
    }) as FlowDefinition,
  );
  return parsed.revision === undefined ? { definition } : { definition, revision: parsed.revision };
};

/**
 * Whether a body asks for a preset (`{preset, from}`) rather than giving a definition. A definition echoed back from
 * `GET` also carries `preset` (read-only, ignored), but always with its `steps`.
 */
export const isPresetRequest = (body: unknown): boolean => isRecord(body) && 'preset' in body && !('steps' in body);

export const parsePresetRequest = (body: unknown): PresetRequest => parse(PresetRequestSchema, body);

/** Re-checks a definition built in code (the presets): they go through the same rules as a merchant's. */
export const checkBuiltDefinition = (definition: FlowDefinition): FlowDefinition =>
  parseFlowDefinition(definition).definition;
