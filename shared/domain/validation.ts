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

/** One issue as `<path> <rule>`; a missing value reads "is required" whatever schema it missed. */
export const describeIssue = (issue: v.BaseIssue<unknown>, root?: string): string => {
  const rule = issue.kind === 'schema' && issue.input === undefined ? 'is required' : issue.message;
  return `${pathOf(issue, root)} ${rule}`;
};

export const describeIssues = (issues: readonly v.BaseIssue<unknown>[], root?: string): string => {
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
