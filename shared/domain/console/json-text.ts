/**
 * JSON typed into a console form (a flow's conditions): read with the place of the first mistake, as a line and a
 * column, which `JSON.parse` does not reliably give (its messages differ between Node versions and often name no
 * position): the mistake is found by jsonc-parser (strict JSON: no comments, no trailing comma), the value read by
 * `JSON.parse` under the same rules as a request body (`shared/json-rules.ts`: no `__proto__` key, no number DynamoDB
 * cannot keep, no deep nesting).
 */
import { type ParseError, parse, printParseErrorCode } from 'jsonc-parser';
import { isAppError } from '#shared/errors.ts';
import { checkJsonValue, exceedsJsonDepth, MAX_JSON_DEPTH } from '#shared/json-rules.ts';

export type JsonReading = { readonly value: unknown } | { readonly problem: string };

const A_VALUE = 'a value (an object, a list, a text in double quotes, a number, true, false or null)';

/** Each mistake jsonc-parser reports (by its `ParseErrorCode` name), as a person reads it. */
const MISTAKES: Readonly<Record<string, string>> = {
  InvalidSymbol: `expected ${A_VALUE}`,
  InvalidNumberFormat: 'this number is not written as JSON writes numbers',
  PropertyNameExpected: 'expected a field name in double quotes',
  ValueExpected: `expected ${A_VALUE}`,
  ColonExpected: 'expected ":" after the field name',
  CommaExpected: 'expected "," between the items',
  CloseBraceExpected: 'expected "," or "}"',
  CloseBracketExpected: 'expected "," or "]"',
  EndOfFileExpected: 'expected nothing after the end of the JSON value',
  InvalidCommentToken: 'comments are not JSON',
  UnexpectedEndOfComment: 'comments are not JSON',
  UnexpectedEndOfString: 'this text is not closed with a double quote',
  UnexpectedEndOfNumber: 'this number ends too early',
  InvalidUnicode: 'expected four hexadecimal digits after \\u',
  InvalidEscapeCharacter: 'an escape other than \\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX',
  InvalidCharacter: 'a line break or control character inside a text',
};

/** Line and column (1-based, in characters) of an offset. */
const placeOf = (text: string, at: number) => {
  const before = text.slice(0, at);
  const line = before.split('\n').length;
  return { line, column: at - (before.lastIndexOf('\n') + 1) + 1 };
};

/** The JSON value of `text`, or what is wrong and where: `expected "," or "}" at line 3, column 5`. */
export const readJsonText = (text: string): JsonReading => {
  if (exceedsJsonDepth(text, MAX_JSON_DEPTH)) {
    return { problem: `nested too deeply: at most ${MAX_JSON_DEPTH} levels of objects and lists` };
  }
  const errors: ParseError[] = [];
  parse(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const [first] = errors;
  if (first) {
    const { line, column } = placeOf(text, first.offset);
    const code = printParseErrorCode(first.error);
    return { problem: `${MISTAKES[code] ?? code} at line ${line}, column ${column}` };
  }
  try {
    return { value: JSON.parse(text, checkJsonValue) };
  } catch (error) {
    if (isAppError(error)) return { problem: error.message };
    throw error;
  }
};
