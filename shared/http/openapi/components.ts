/**
 * Named schemas of the description (`#/components/schemas/<name>`). A route file names a schema with `ref(name, schema)`
 * and uses the `$ref` it returns; the generator collects every named schema into `components`. One name, one schema:
 * naming two different schemas alike throws, so a clash cannot silently drop one.
 */
import { type JsonSchema, jsonSchemaOf, type SchemaSource } from './json-schema.ts';

const named = new Map<string, { source: SchemaSource; schema: JsonSchema }>();

/** `{ $ref }` to `name`, registering `source` under it. */
export const ref = (name: string, source: SchemaSource): JsonSchema => {
  if (!/^[A-Za-z0-9._-]+$/.test(name)) throw new Error(`Schema name "${name}" is not a valid component name`);
  const known = named.get(name);
  if (known && known.source !== source) throw new Error(`Two different schemas are named "${name}"`);
  if (!known) named.set(name, { source, schema: jsonSchemaOf(source) });
  return { $ref: `#/components/schemas/${name}` };
};

/** Every named schema, sorted by name. */
export const namedSchemas = (): Record<string, JsonSchema> =>
  Object.fromEntries([...named.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([k, { schema }]) => [k, schema]));
