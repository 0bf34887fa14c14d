/**
 * JSON typed into a console form (a flow's conditions): read with the place of the first mistake, as a line and a
 * column, which `JSON.parse` does not reliably give (its messages differ between Node versions and often name no
 * position). The values this service cannot keep are refused as the API's body reader refuses them: a `__proto__` key
 * (it turns into a prototype once the object is copied) and a number beyond ±2^53 or below 1e-130 in magnitude
 * (DynamoDB cannot store it as sent). Nesting is capped well above what a condition group needs.
 */

export type JsonReading = { readonly value: unknown } | { readonly problem: string };

const MAX_DEPTH = 24;

class Mistake {
  readonly at: number;
  readonly problem: string;
  constructor(at: number, problem: string) {
    this.at = at;
    this.problem = problem;
  }
}

/** Line and column (1-based, in characters) of an offset. */
const placeOf = (text: string, at: number) => {
  const before = text.slice(0, at);
  const line = before.split('\n').length;
  return { line, column: at - (before.lastIndexOf('\n') + 1) + 1 };
};

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

/** A recursive-descent reader of RFC 8259 JSON; throws a `Mistake` at the first character that cannot be read. */
const reader = (text: string) => {
  let i = 0;
  const seen = () => (i >= text.length ? 'the end of the text' : `${JSON.stringify(text[i])}`);
  const fail = (expected: string): never => {
    throw new Mistake(i, `expected ${expected}, found ${seen()}`);
  };
  const space = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i] as string)) i++;
  };

  const string = (): string => {
    const start = i;
    i++; // the opening quote
    let out = '';
    for (;;) {
      if (i >= text.length) throw new Mistake(start, 'this text is not closed with a double quote');
      const c = text[i] as string;
      if (c === '"') {
        i++;
        return out;
      }
      if (c.charCodeAt(0) < 0x20) throw new Mistake(i, 'a line break or control character inside a text');
      if (c === '\\') {
        const next = text[i + 1] ?? '';
        if (next === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
          out += String.fromCharCode(Number.parseInt(text.slice(i + 2, i + 6), 16));
          i += 6;
        } else if (next in ESCAPES) {
          out += ESCAPES[next];
          i += 2;
        } else {
          throw new Mistake(i, 'an escape other than \\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX');
        }
      } else {
        out += c;
        i++;
      }
    }
  };

  const number = (): number => {
    NUMBER.lastIndex = i;
    const match = NUMBER.exec(text);
    if (!match) return fail('a value (an object, a list, a text in double quotes, a number, true, false or null)');
    const value = Number(match[0]);
    if (Math.abs(value) > Number.MAX_SAFE_INTEGER || (value !== 0 && Math.abs(value) < 1e-130)) {
      throw new Mistake(i, `numbers must be between -${Number.MAX_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}`);
    }
    i += match[0].length;
    return value;
  };

  const value = (depth: number): unknown => {
    space();
    if (depth > MAX_DEPTH) throw new Mistake(i, `nested deeper than ${MAX_DEPTH} levels`);
    const c = text[i];
    if (c === '{') return object(depth);
    if (c === '[') return list(depth);
    if (c === '"') return string();
    for (const [word, literal] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return literal;
      }
    }
    return number();
  };

  const object = (depth: number) => {
    i++;
    const out: Record<string, unknown> = {};
    space();
    if (text[i] === '}') {
      i++;
      return out;
    }
    for (;;) {
      space();
      if (text[i] !== '"') fail('a field name in double quotes');
      const keyAt = i;
      const key = string();
      if (key === '__proto__') throw new Mistake(keyAt, 'the key "__proto__" is not allowed');
      space();
      if (text[i] !== ':') fail('":" after the field name');
      i++;
      out[key] = value(depth + 1);
      space();
      if (text[i] === '}') {
        i++;
        return out;
      }
      if (text[i] !== ',') fail('"," or "}"');
      i++;
    }
  };

  const list = (depth: number) => {
    i++;
    const out: unknown[] = [];
    space();
    if (text[i] === ']') {
      i++;
      return out;
    }
    for (;;) {
      out.push(value(depth + 1));
      space();
      if (text[i] === ']') {
        i++;
        return out;
      }
      if (text[i] !== ',') fail('"," or "]"');
      i++;
    }
  };

  return {
    read: () => {
      const read = value(1);
      space();
      if (i < text.length) fail('nothing after the end of the JSON value');
      return read;
    },
  };
};

/** The JSON value of `text`, or what is wrong and where: `expected "," or "}", found "]" at line 3, column 5`. */
export const readJsonText = (text: string): JsonReading => {
  try {
    return { value: reader(text).read() };
  } catch (error) {
    if (!(error instanceof Mistake)) throw error;
    const { line, column } = placeOf(text, error.at);
    return { problem: `${error.problem} at line ${line}, column ${column}` };
  }
};
