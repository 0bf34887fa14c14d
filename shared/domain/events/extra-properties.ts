/**
 * Extra properties: fields of a payload the spec does not name are kept (customers and carts merge them into the
 * entity's `attributes` across events, products keep them per event). Unbounded, three `customers/update` events with a
 * new 200 KB field each would grow a customer past DynamoDB's 400 KB item, and every later event of that customer would
 * fail. So each has a budget, checked twice:
 * - at ingestion, per event: each extra property at most `maxValueBytes` as JSON and all of them at most `maxEventBytes`
 *   (412 naming the field);
 * - when merged into a stored entity: at most `maxStoredKeys` properties and `maxStoredBytes` in all; an event that would
 *   pass that fails permanently (recorded as failed on the event, never retried) and the entity stays as it was.
 * With the 256 KiB body limit for the named fields, no stored entity can outgrow an item (docs/limits.md).
 */
import type * as v from 'valibot';
import { PermanentError, validationError } from '#shared/errors.ts';

export const EXTRA_PROPERTIES = {
  maxValueBytes: 8 * 1024,
  maxEventBytes: 16 * 1024,
  maxStoredKeys: 100,
  maxStoredBytes: 32 * 1024,
} as const;

const encoder = new TextEncoder();
const jsonBytes = (value: unknown): number => encoder.encode(JSON.stringify(value) ?? '').length;

type Entries = Readonly<Record<string, unknown>>;

/** The field names an object schema (or a pipe starting with one) declares; undefined for other schemas. */
const declaredKeys = (schema: v.GenericSchema): ReadonlySet<string> | undefined => {
  const withEntries = schema as { entries?: Entries; pipe?: readonly { entries?: Entries }[] };
  const entries = withEntries.entries ?? withEntries.pipe?.find((item) => item.entries)?.entries;
  return entries ? new Set(Object.keys(entries)) : undefined;
};

const cache = new WeakMap<v.GenericSchema, ReadonlySet<string> | undefined>();

/** Refuses (412) a payload whose extra properties, beside what `schema` declares, pass the per-event budget. */
export const checkExtraProperties = (schema: v.GenericSchema, data: Entries, root = 'data'): void => {
  if (!cache.has(schema)) cache.set(schema, declaredKeys(schema));
  const known = cache.get(schema);
  if (!known) return;
  let total = 0;
  for (const [key, value] of Object.entries(data)) {
    if (known.has(key) || value === undefined) continue;
    const bytes = jsonBytes(value);
    if (bytes > EXTRA_PROPERTIES.maxValueBytes) {
      throw validationError(
        `${root}.${key} must be at most ${EXTRA_PROPERTIES.maxValueBytes} bytes as JSON (an extra property)`,
      );
    }
    total += bytes + jsonBytes(key);
    if (total > EXTRA_PROPERTIES.maxEventBytes) {
      throw validationError(
        `${root}.${key}: extra properties must total at most ${EXTRA_PROPERTIES.maxEventBytes} bytes as JSON`,
      );
    }
  }
};

/**
 * The stored extra properties with an event's merged in; throws `PermanentError` (the event fails, the entity is left
 * as it was) when the result would pass the stored budget.
 */
export const mergeExtraProperties = (entity: string, stored: Entries | undefined, extra: Entries): Entries => {
  const merged = { ...stored, ...extra };
  const keys = Object.keys(merged).length;
  if (keys > EXTRA_PROPERTIES.maxStoredKeys) {
    throw new PermanentError(
      `the ${entity} would have ${keys} extra properties; at most ${EXTRA_PROPERTIES.maxStoredKeys} are kept`,
    );
  }
  const bytes = jsonBytes(merged);
  if (bytes > EXTRA_PROPERTIES.maxStoredBytes) {
    throw new PermanentError(
      `the ${entity}'s extra properties would take ${bytes} bytes; at most ${EXTRA_PROPERTIES.maxStoredBytes} are kept`,
    );
  }
  return merged;
};
