/**
 * The flow definition as the API accepts it (`POST`/`PUT /api/v1/flows`), with messages that read after a field path
 * (`steps[1].seconds must be at least 60`). What the schema cannot say — templates that parse, the consent a trigger
 * kind allows, unique step ids — is checked by `parseFlowDefinition` with the same message style.
 */
import * as v from 'valibot';
import { parseOrThrow } from '#shared/domain/validation.ts';
import { validationError } from '#shared/errors.ts';
import { groupAt, integerBetween, isRecord, known, line } from './condition-schema.ts';
import type { Flow, FlowStep, ReentryPolicy } from './flow.ts';
import { SAFE_ID } from './flow-id.ts';
import { DEFAULT_CONSENT, DEFAULT_REENTRY, FLOW_RULES, TRANSACTIONAL_KINDS } from './flow-rules.ts';
import { validateTemplates } from './render.ts';
import { flatSteps, HOLDOUT } from './split.ts';
import { FLOW_KINDS, isSegmentKind, PRESET_KINDS } from './trigger.ts';

/** What a definition sets; the service sets the rest (store, id, times, revision, preset). */
export type FlowDefinition = Omit<Flow, 'storeId' | 'id' | 'createdAt' | 'updatedAt' | 'revision' | 'preset'>;

const email = () =>
  v.pipe(
    v.string('must be a string'),
    v.trim(),
    v.toLowerCase(),
    v.maxLength(254, 'must be at most 254 characters'),
    v.email('must be an email address'),
  );

const stepId = () =>
  v.pipe(
    v.string('must be a string'),
    v.regex(SAFE_ID, 'must use only letters, digits, "_" and "-"'),
    v.maxLength(FLOW_RULES.stepIdMaxChars, `must be at most ${FLOW_RULES.stepIdMaxChars} characters`),
  );

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

const BranchStepSchema = v.variant(
  'type',
  [WaitStep, EmailStep, ExitStep],
  'must be one of: wait, email, exit_if (a split cannot hold another split)',
);

const SplitBranchSchema = known({
  id: stepId(),
  percent: integerBetween(FLOW_RULES.split.branchPercent.min, FLOW_RULES.split.branchPercent.max),
  steps: v.pipe(
    v.array(BranchStepSchema, 'must be an array'),
    v.minLength(1, 'must have at least 1 step'),
    v.maxLength(FLOW_RULES.steps.max, `must have at most ${FLOW_RULES.steps.max} steps`),
  ),
});

const SplitStep = known({
  type: v.literal('split'),
  id: v.optional(stepId()),
  branches: v.pipe(
    v.array(SplitBranchSchema, 'must be an array'),
    v.minLength(FLOW_RULES.split.branches.min, `must have at least ${FLOW_RULES.split.branches.min} branches`),
    v.maxLength(FLOW_RULES.split.branches.max, `must have at most ${FLOW_RULES.split.branches.max} branches`),
    v.check((branches) => branches.reduce((sum, b) => sum + b.percent, 0) === 100, 'must add up to 100 percent'),
  ),
});

const StepSchema = v.variant(
  'type',
  [WaitStep, EmailStep, ExitStep, SplitStep],
  'must be one of: wait, email, exit_if, split',
);

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
    holdoutPercent: v.optional(integerBetween(FLOW_RULES.holdoutPercent.min, FLOW_RULES.holdoutPercent.max)),
    onFrequencyCap: v.optional(v.picklist(['skip', 'wait'], 'must be one of: skip, wait')),
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

type ParsedStep = { readonly type: string; readonly id?: string | undefined } & Record<string, unknown>;
type ParsedBranch = { readonly id: string; readonly percent: number; readonly steps: readonly ParsedStep[] };

/**
 * Steps with ids: the given ones, and a default for the others: `step-<n>` (its 1-based position) at the top,
 * `<branch id>-<n>` in a branch. Ids are unique across the flow, branches included (a run knows its place by step id),
 * and a branch's id is unique in its split.
 */
const withStepIds = (steps: readonly ParsedStep[]): FlowStep[] => {
  const seen = new Set<string>();
  const named = (step: ParsedStep, id: string, path: string) => {
    if (seen.has(id)) throw validationError(`${path}.id "${id}" is used by an earlier step`);
    seen.add(id);
    return withoutUndefined({ ...step, id });
  };
  return steps.map((step, index) => {
    const top = named(step, step.id ?? `step-${index + 1}`, `steps[${index}]`);
    if (step.type !== 'split') return top as unknown as FlowStep;
    const branchIds = new Set<string>();
    const branches = (step.branches as readonly ParsedBranch[]).map((branch, b) => {
      const path = `steps[${index}].branches[${b}]`;
      if (branchIds.has(branch.id)) throw validationError(`${path}.id "${branch.id}" is used by an earlier branch`);
      if (branch.id === HOLDOUT) throw validationError(`${path}.id "${HOLDOUT}" is the holdout group's name`);
      branchIds.add(branch.id);
      return {
        ...branch,
        steps: branch.steps.map((inner, i) => named(inner, inner.id ?? `${branch.id}-${i + 1}`, `${path}.steps[${i}]`)),
      };
    });
    return { ...top, branches } as unknown as FlowStep;
  });
};

/** Checks a split's place: the last step (its branches are the rest of the run), and the only one. */
const checkSplits = (steps: readonly FlowStep[]) => {
  const index = steps.findIndex((step) => step.type === 'split');
  if (index >= 0 && index !== steps.length - 1) {
    throw validationError(
      `steps[${index}] is a split and must be the last step: each branch holds the rest of its runs (put later steps in every branch)`,
    );
  }
  const total = flatSteps(steps).length;
  if (total > FLOW_RULES.steps.max) {
    throw validationError(
      `steps has ${total} steps counting those in branches; at most ${FLOW_RULES.steps.max} are allowed`,
    );
  }
};

/** Checks what the schema cannot: at least one email, templates that parse, consent the kind allows. */
const checkDefinition = (definition: FlowDefinition): FlowDefinition => {
  checkSplits(definition.steps);
  if (!flatSteps(definition.steps).some((step) => step.type === 'email')) {
    throw validationError('steps must contain at least one email step');
  }
  definition.steps.forEach((step, index) => {
    if (step.type === 'email') validateTemplates(step, `steps[${index}]`);
    if (step.type !== 'split') return;
    step.branches.forEach((branch, b) => {
      branch.steps.forEach((inner, i) => {
        if (inner.type === 'email') validateTemplates(inner, `steps[${index}].branches[${b}].steps[${i}]`);
      });
    });
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
      holdoutPercent: parsed.holdoutPercent || undefined,
      onFrequencyCap: parsed.onFrequencyCap === 'wait' ? 'wait' : undefined,
      steps: withStepIds(parsed.steps as unknown as ParsedStep[]),
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
