/**
 * What this service accepts in JSON it is given, wherever the text comes from (a request body, a console form): the
 * values it cannot keep as sent are refused while parsing, and deep nesting before.
 */
import { validationError } from '#shared/errors.ts';

/**
 * Refuses, while parsing, what this service cannot keep as sent (found by test/fuzz: accepted, each failed the worker
 * on every attempt): a number beyond ±2^53 (JavaScript has already rounded it; the DynamoDB marshaller refuses it) or
 * below 1e-130 in magnitude (DynamoDB cannot store it), and a `__proto__` key (an own `__proto__` property turns into a
 * prototype as soon as code copies the object, and DynamoDB then receives an empty attribute value).
 */
export const checkJsonValue = (key: string, value: unknown): unknown => {
  if (key === '__proto__') throw validationError('the key "__proto__" is not allowed');
  if (
    typeof value === 'number' &&
    (Math.abs(value) > Number.MAX_SAFE_INTEGER || (value !== 0 && Math.abs(value) < 1e-130))
  ) {
    throw validationError(
      `numbers must be between -${Number.MAX_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}, got ${value}`,
    );
  }
  return value;
};

/**
 * JSON nested deeper than this is refused before it is parsed: no payload of the spec comes near it, DynamoDB stores
 * at most 32 levels, and code that walks a value recursively (`JSON.stringify` with a replacer) overflows the stack on
 * a few thousand levels, which a 256 KiB body can easily hold (found by test/fuzz).
 */
export const MAX_JSON_DEPTH = 24;

/** True when the JSON text nests arrays/objects deeper than `max` (strings skipped; one pass, no recursion). */
export const exceedsJsonDepth = (text: string, max: number): boolean => {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
};
