/**
 * Field schemas shared by the event payloads, with messages that read after a field path ("… must be a string").
 * Optional fields accept `null` as absent: integrations commonly send `null` for "no value".
 * Ids and amounts also accept JSON numbers (many platforms emit numeric ids and prices) and are stored as strings.
 */
import * as v from 'valibot';

export const text = () => v.string('must be a string');

export const nonEmptyText = () => v.pipe(text(), v.trim(), v.nonEmpty('must not be empty'));

/**
 * Longest id accepted. Ids become parts of table keys (DynamoDB: partition key at most 2,048 bytes, sort key 1,024), so
 * an unbounded id would be accepted here and then fail in the worker on every attempt; 255 characters is far beyond
 * any platform's ids and keeps every composed key within the limits even in 4-byte UTF-8.
 */
export const ID_MAX_LENGTH = 255;

/** An id: a non-empty string, or an integer that is kept as its decimal string. */
export const id = () =>
  v.pipe(
    v.union([nonEmptyText(), v.pipe(v.number(), v.integer(), v.transform(String))], 'must be a non-empty string'),
    v.maxLength(ID_MAX_LENGTH, `must be at most ${ID_MAX_LENGTH} characters`),
  );

/** A money amount as the spec's String; a JSON number is accepted and kept as its decimal string. */
export const amount = () =>
  v.union(
    [
      v.pipe(text(), v.regex(/^-?\d+(\.\d+)?$/, 'must be a decimal number without currency symbol')),
      v.pipe(v.number(), v.finite(), v.transform(String)),
    ],
    'must be a decimal amount',
  );

/** Largest Unix time in seconds we accept before reading a value as milliseconds (year 5138). */
const SECONDS_CEILING = 99_999_999_999;

/**
 * A timestamp in seconds; milliseconds are accepted too (the spec allows both for `created_at`) and normalised to
 * seconds. Digit strings are accepted because some clients serialise Longs as strings.
 */
export const epochSeconds = () =>
  v.pipe(
    v.union(
      [v.pipe(v.number(), v.integer()), v.pipe(text(), v.regex(/^\d{1,16}$/), v.transform(Number))],
      'must be an integer Unix timestamp in seconds or milliseconds',
    ),
    v.minValue(0, 'must not be negative'),
    v.transform((n) => (n > SECONDS_CEILING ? Math.floor(n / 1000) : n)),
  );

export const email = () =>
  v.pipe(
    text(),
    v.trim(),
    v.toLowerCase(),
    v.maxLength(254, 'must be at most 254 characters'),
    v.email('must be an email address'),
  );

export const countryCode = () =>
  v.pipe(text(), v.trim(), v.regex(/^[A-Za-z]{2}$/, 'must be an ISO 3166-1 alpha-2 code'), v.toUpperCase());

/** A phone number as sent (formats vary); bounded because a subscriber's phone becomes part of a table key. */
export const phone = () => v.pipe(nonEmptyText(), v.maxLength(64, 'must be at most 64 characters'));

export const yesNo = () => v.picklist(['Y', 'N'], 'must be "Y" or "N"');

/** Optional and nullable; `null` becomes `undefined` so it never overwrites a stored value. */
export const opt = <S extends v.GenericSchema>(schema: S) =>
  v.pipe(
    v.nullish(schema),
    v.transform((value) => value ?? undefined),
  );

/** Whether `schema` takes a missing value already (`opt(…)`, `v.optional`, `v.nullish`, or a pipe starting with one). */
const takesMissing = (schema: v.GenericSchema): boolean => {
  const first = (schema as { pipe?: readonly { type?: string }[] }).pipe?.[0] ?? schema;
  return first.type === 'nullish' || first.type === 'optional';
};

type Fields = Readonly<Record<string, v.GenericSchema>>;

/**
 * A headless payload's fields: its own (`own`, the spec's headless table), then every field of the general payload
 * (`general`) it does not name itself, optional (`opt`) and checked by the very schema the general interface checks it
 * with, so a field is checked alike on both interfaces. A general field already optional is taken as it is.
 */
export const withGeneralFields = <O extends Fields, G extends Fields>(
  own: O,
  general: G,
): O & { [K in Exclude<keyof G, keyof O>]: ReturnType<typeof opt<G[K]>> } => {
  const shared = Object.entries(general)
    .filter(([name]) => !Object.hasOwn(own, name))
    .map(([name, schema]) => [name, takesMissing(schema) ? schema : opt(schema)]);
  return { ...own, ...Object.fromEntries(shared) };
};

export const CONSENT_STATES = ['subscribed', 'not_subscribed', 'unsubscribed'] as const;
export type ConsentState = (typeof CONSENT_STATES)[number];

export const marketingConsent = () =>
  v.looseObject(
    {
      state: v.picklist(CONSENT_STATES, `must be one of: ${CONSENT_STATES.join(', ')}`),
      updatedAt: opt(epochSeconds()),
    },
    'must be an object',
  );

const ADDRESS_FIELDS = [
  'first_name',
  'last_name',
  'phone',
  'country_code',
  'country_name',
  'province',
  'province_code',
  'city',
  'zip',
  'address1',
  'address2',
] as const;

export const address = () =>
  v.looseObject(
    Object.fromEntries(ADDRESS_FIELDS.map((name) => [name, opt(text())])) as Record<
      (typeof ADDRESS_FIELDS)[number],
      ReturnType<typeof opt<ReturnType<typeof text>>>
    >,
    'must be an object',
  );

/** A JSON object (not an array, not null). */
export const jsonObject = (message = 'must be an object') =>
  v.custom<Record<string, unknown>>(
    (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
    message,
  );

/**
 * `schema` where one of `field` and `alternative` must be present (e.g. email or phone), reported on `field` as
 * `data.<field> is required (or data.<alternative>)`.
 */
export const requireOneOf = <S extends v.GenericSchema<unknown, Record<string, unknown>>>(
  schema: S,
  field: string,
  alternative: string,
): S =>
  // The check transforms nothing, so the piped schema's input and output are `S`'s; the cast keeps them for callers.
  v.pipe(
    schema,
    v.forward(
      v.check(
        (data: v.InferOutput<S>) => data[field] !== undefined || data[alternative] !== undefined,
        `is required (or data.${alternative})`,
      ),
      [field] as never,
    ),
  ) as unknown as S;
