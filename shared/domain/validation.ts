/**
 * Turns valibot issues into the messages callers see: the field path and the rule, e.g.
 * `data.line_items[0].product_id is required` or `source_id must be at most 50 characters`.
 */
import * as v from 'valibot';
import { validationError } from '#shared/errors.ts';

const MAX_ISSUES_SHOWN = 5;

const pathOf = (issue: v.BaseIssue<unknown>, root: string | undefined): string => {
  let path = root ?? '';
  for (const item of issue.path ?? []) {
    if (item.type === 'array') path += `[${String(item.key)}]`;
    else if (typeof item.key === 'string') path += path ? `.${item.key}` : item.key;
  }
  return path || 'body';
};

/** Messages the spec words in full (`Topic noneffective`): answered as they are, without a field path. */
const WHOLE_MESSAGES = new Set<string>();

/**
 * A schema's message that the caller sees word for word, e.g. `v.picklist(TOPICS, specMessage('Topic noneffective'))`:
 * where the spec fixes an error's text, the schema that checks the rule carries it.
 */
export const specMessage = (message: string): string => {
  WHOLE_MESSAGES.add(message);
  return message;
};

/**
 * A value whose rules the use case applies (with the spec's messages, or with a policy only it knows, such as the
 * deployment's URL rules), described for the API document as `wire` (JSON Schema keywords: `type`, `maxLength` …).
 * The schema accepts anything, so the use case sees the value as sent.
 */
export const checkedByUseCase = (wire: Readonly<Record<string, unknown>>) => v.pipe(v.unknown(), v.metadata(wire));

/** One issue as `<path> <rule>`; a missing value reads "is required" whatever schema it missed. */
export const describeIssue = (issue: v.BaseIssue<unknown>, root?: string): string => {
  if (WHOLE_MESSAGES.has(issue.message)) return issue.message;
  const rule = issue.kind === 'schema' && issue.input === undefined ? 'is required' : issue.message;
  return `${pathOf(issue, root)} ${rule}`;
};

export const describeIssues = (issues: readonly v.BaseIssue<unknown>[], root?: string): string => {
  // A message the spec words in full stands alone: callers match it exactly.
  const whole = issues.find((issue) => WHOLE_MESSAGES.has(issue.message));
  if (whole) return whole.message;
  const shown = issues.slice(0, MAX_ISSUES_SHOWN).map((issue) => describeIssue(issue, root));
  const more = issues.length - shown.length;
  return more > 0 ? `${shown.join('; ')}; and ${more} more` : shown.join('; ');
};

/** Parses or throws a `validation` AppError naming every failing field (paths prefixed with `root`). */
export const parseOrThrow = <S extends v.GenericSchema>(schema: S, input: unknown, root?: string): v.InferOutput<S> => {
  const result = v.safeParse(schema, input);
  if (!result.success) throw validationError(describeIssues(result.issues, root));
  return result.output;
};
