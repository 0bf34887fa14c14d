/**
 * valibot → JSON Schema (2020-12, the dialect of OpenAPI 3.1) for the API description. The request schemas converted
 * here are the very ones the handlers validate with, so the document cannot promise what the API refuses.
 *
 * Conversion describes the input a client sends (`typeMode: 'input'`): transforms (trim, lower-casing, numeric ids kept
 * as strings) are what the service does afterwards. Refinements JSON Schema cannot express (`v.check`, `v.custom`) are
 * left out by the converter; the few that matter to a client are added back where the schema is registered.
 */
import { type JsonSchema, toJsonSchema } from '@valibot/to-json-schema';
import type * as v from 'valibot';

export type { JsonSchema };

/** A request or response schema as the registry takes it: a valibot schema, or JSON Schema written out. */
export type SchemaSource = v.GenericSchema | JsonSchema;

const isValibot = (source: SchemaSource): source is v.GenericSchema =>
  typeof source === 'object' && source !== null && (source as { kind?: unknown }).kind === 'schema';

/** The JSON Schema of a valibot schema (or a JSON Schema as is), without its own `$schema`. */
export const jsonSchemaOf = (source: SchemaSource): JsonSchema => {
  if (!isValibot(source)) return source;
  const { $schema: _dialect, ...schema } = toJsonSchema(source, {
    target: 'draft-2020-12',
    typeMode: 'input',
    errorMode: 'ignore',
    // `v.custom` carries a predicate only; in this code base it guards "a JSON object" (`jsonObject()`, envelopes).
    overrideSchema: ({ valibotSchema }) => (valibotSchema.type === 'custom' ? { type: 'object' } : undefined),
  }) as JsonSchema & { $schema?: string };
  return schema;
};
