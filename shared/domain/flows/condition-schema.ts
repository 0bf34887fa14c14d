/**
 * The condition language's schema, shared by flows (entry and `exit_if`) and segments: conditions on `event.`,
 * `contact.`, `custom.` and `activity.` fields, in groups nested at most `FLOW_RULES.groupDepth` deep, and the schema
 * helpers both definitions are written with (`known` objects that name an unknown field, one-`line` text).
 */
import * as v from 'valibot';
import { CONDITION_OPERATORS, type ConditionGroup } from './flow.ts';
import { CONDITION_FIELD, FLOW_RULES } from './flow-rules.ts';

export const isRecord = (value: unknown): value is Record<string, unknown> =>
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
/** A whole number from `min` to `max`, each rule with its own message. */
export const integerBetween = (min: number, max: number) =>
  v.pipe(
    v.number('must be a number'),
    v.integer('must be an integer'),
    v.minValue(min, `must be at least ${min}`),
    v.maxValue(max, `must be at most ${max}`),
  );

export const line = (max: number) =>
  v.pipe(
    v.string('must be a string'),
    v.check((text) => !CONTROL.test(text), 'must be one line without control characters (CR, LF, tab…)'),
    v.maxLength(max, `must be at most ${max} characters`),
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
