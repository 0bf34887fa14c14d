/**
 * The segment definition as the API accepts it (`POST`/`PUT /api/v1/segments`): a name and a condition group in the
 * flows' language (the same schema, `groupAt`), with messages that read after a field path. What the group schema
 * cannot say — which fields a segment can read, how many conditions it holds — is checked here in the same style.
 */
import * as v from 'valibot';
import { groupAt, known, line } from '#shared/domain/flows/condition-schema.ts';
import type { ConditionGroup } from '#shared/domain/flows/flow.ts';
import { parseOrThrow } from '#shared/domain/validation.ts';
import { validationError } from '#shared/errors.ts';
import { LIMITS } from '#shared/limits.ts';
import { conditionsOf, isSegmentField } from './facts.ts';

export const SEGMENT_NAME_MAX_CHARS = 100;

/** Read-only fields of a segment record: a body sent back as `GET` answered it is accepted; they are ignored. */
const READ_ONLY = ['id', 'status', 'count', 'build', 'createdAt', 'updatedAt'];

/** A full definition (`POST`, `PUT`); exported for the API description. */
export const SegmentDefinitionSchema = known(
  {
    name: v.pipe(line(SEGMENT_NAME_MAX_CHARS), v.trim(), v.nonEmpty('must not be empty')),
    conditions: groupAt(1),
    /** `PUT` only: the revision the change was made on (optimistic concurrency). */
    revision: v.optional(
      v.pipe(v.number('must be a number'), v.integer('must be an integer'), v.minValue(1, 'must be at least 1')),
    ),
  },
  READ_ONLY,
);

export interface SegmentDefinition {
  readonly name: string;
  readonly conditions: ConditionGroup;
}

/** The field path of each leaf condition, as a message names it (`conditions.conditions[1].conditions[0]`). */
const checkFields = (group: ConditionGroup, path: string) => {
  group.conditions.forEach((member, index) => {
    const at = `${path}.conditions[${index}]`;
    if ('conditions' in member) {
      checkFields(member, at);
    } else if (!isSegmentField(member.field)) {
      throw validationError(
        `${at}.field ${member.field} is not a segment field: use contact.… (record fields, total_spent, ` +
          'orders_placed, attributes.…) or activity.days_since_last_order / _open / _click (docs/segments.md)',
      );
    }
  });
};

/** A definition from a request body, and the `revision` it was made on when given. */
export const parseSegmentDefinition = (body: unknown): { definition: SegmentDefinition; revision?: number } => {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw validationError('body must be a JSON object');
  }
  const parsed = parseOrThrow(SegmentDefinitionSchema, body);
  const conditions = parsed.conditions as ConditionGroup;
  const count = conditionsOf(conditions).length;
  if (count > LIMITS.conditionsPerSegment) {
    throw validationError(
      `conditions holds ${count} conditions; a segment may have at most ${LIMITS.conditionsPerSegment}`,
    );
  }
  checkFields(conditions, 'conditions');
  const definition = { name: parsed.name, conditions };
  return parsed.revision === undefined ? { definition } : { definition, revision: parsed.revision };
};

/** Reads a `POST /segments` body; throws the validation error naming the field and the rule. */
export const parseSegmentCreateRequest = (body: unknown): SegmentDefinition => parseSegmentDefinition(body).definition;
/** Reads a `PUT /segments/{id}` body: the definition and the optional `revision`. */
export const parseSegmentUpdateRequest = parseSegmentDefinition;
export type SegmentUpdateInput = ReturnType<typeof parseSegmentUpdateRequest>;
