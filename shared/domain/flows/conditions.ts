/**
 * Condition evaluation (entry conditions and `exit_if`). Pure: facts come from a resolver, so the engine can fetch the
 * expensive ones (order count, activity since the trigger) only when a condition names them. Semantics are documented
 * in docs/flows.md "How runs work"; the tests in test/unit/flows/engine-conditions.test.ts pin them.
 */
import type { Condition, ConditionGroup } from './flow.ts';
import type { ConditionVerdict } from './run.ts';

/** Resolves a dotted field (`event.total`, `contact.tags`, `custom.level`, …) to its value, `undefined` if unknown. */
export type Facts = (field: string) => Promise<unknown>;

export type Verdict = { readonly holds: true } | { readonly holds: false; readonly failed: ConditionVerdict };

const isGroup = (c: Condition | ConditionGroup): c is ConditionGroup => 'match' in c && 'conditions' in c;

/**
 * What `exists` / `not_exists` call absent: nothing, empty text, an empty list, and `false`, so that a yes/no fact
 * such as `activity.order_paid_since_trigger` reads naturally with `exists` as well as with `equals true`.
 */
const absent = (value: unknown) =>
  value === undefined ||
  value === null ||
  value === '' ||
  value === false ||
  (Array.isArray(value) && value.length === 0);

/** A finite number from a number or a numeric string (`"19.90"`), else undefined. */
const numeric = (value: unknown): number | undefined => {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && value.trim() !== '' && /^[-+]?\d*\.?\d+(e[-+]?\d+)?$/i.test(value.trim())) {
    return Number(value);
  }
  return undefined;
};

/** Scalars compare as numbers when both read as numbers, as booleans against `true`/`"true"`, else as strings (case-insensitive). */
const same = (seen: unknown, expected: string | number | boolean): boolean => {
  if (seen === undefined || seen === null || typeof seen === 'object') return false;
  const a = numeric(seen);
  const b = numeric(expected);
  if (a !== undefined && b !== undefined) return a === b;
  if (typeof expected === 'boolean' || typeof seen === 'boolean') return String(seen) === String(expected);
  return String(seen).toLowerCase() === String(expected).toLowerCase();
};

const test = (op: Condition['op'], seen: unknown, expected: Condition['value']): boolean => {
  switch (op) {
    case 'exists':
      return !absent(seen);
    case 'not_exists':
      return absent(seen);
    case 'equals':
      return expected !== undefined && same(seen, expected);
    case 'not_equals':
      return expected === undefined || !same(seen, expected);
    case 'greater_than':
    case 'less_than': {
      const a = numeric(seen);
      const b = numeric(expected);
      if (a === undefined || b === undefined) return false;
      return op === 'greater_than' ? a > b : a < b;
    }
    case 'contains':
      if (expected === undefined) return false;
      if (Array.isArray(seen)) return seen.some((item) => same(item, expected));
      if (typeof seen === 'string') return seen.toLowerCase().includes(String(expected).toLowerCase());
      return false;
  }
};

const MAX_SHOWN_CHARS = 200;

/** The value as the explain view shows it: JSON-safe, long strings and structures cut. */
export const shown = (value: unknown): unknown => {
  if (value === undefined) return undefined;
  if (typeof value === 'string') return value.length > MAX_SHOWN_CHARS ? `${value.slice(0, MAX_SHOWN_CHARS)}…` : value;
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return value;
  const json = JSON.stringify(value);
  return json.length > MAX_SHOWN_CHARS ? `${json.slice(0, MAX_SHOWN_CHARS)}…` : value;
};

const verdictOf = (condition: Condition, seen: unknown): ConditionVerdict => ({
  field: condition.field,
  op: condition.op,
  ...(condition.value !== undefined ? { expected: condition.value } : {}),
  ...(seen !== undefined ? { value: shown(seen) } : {}),
});

/**
 * Evaluates a group. `all` fails on its first false member, `any` holds on its first true one (members are read in
 * order, so later facts are not fetched). A false group reports one condition: for `all` the first false one, for
 * `any` the first one tried (every member was false). An empty group holds.
 */
export const evaluate = async (group: ConditionGroup, facts: Facts): Promise<Verdict> => {
  let firstFailure: ConditionVerdict | undefined;
  for (const member of group.conditions) {
    let verdict: Verdict;
    if (isGroup(member)) {
      verdict = await evaluate(member, facts);
    } else {
      const seen = await facts(member.field);
      verdict = test(member.op, seen, member.value)
        ? { holds: true }
        : { holds: false, failed: verdictOf(member, seen) };
    }
    if (group.match === 'all' && !verdict.holds) return verdict;
    if (group.match === 'any' && verdict.holds) return verdict;
    if (!verdict.holds) firstFailure ??= verdict.failed;
  }
  return group.match === 'any' && firstFailure ? { holds: false, failed: firstFailure } : { holds: true };
};

/** Reads a dotted path (`a.b.0.c`) in plain data; numeric segments index arrays. */
export const pathValue = (root: unknown, path: readonly string[]): unknown => {
  let value: unknown = root;
  for (const segment of path) {
    if (value === null || value === undefined) return undefined;
    if (Array.isArray(value)) {
      const index = Number(segment);
      value = Number.isInteger(index) ? value[index] : undefined;
    } else if (typeof value === 'object') {
      value = Object.hasOwn(value, segment) ? (value as Record<string, unknown>)[segment] : undefined;
    } else {
      return undefined;
    }
  }
  return value;
};
