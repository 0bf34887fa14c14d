/**
 * Helpers of the property-based (fast-check) hostile-input suites: hostile JSON texts and bodies, raw byte corruption
 * (invalid UTF-8, truncation), a pool of clean stores, and the three invariants every suite checks per request:
 *
 * 1. never a 5xx, and the answer is JSON (every interface answers its errors in its own JSON shape);
 * 2. a refused request stores nothing: the store's partitions (`STORE#<id>…`) hold exactly what they held before.
 *    A store that accepted anything is retired from the pool (what it accepted may still be applied by a worker), so
 *    every store in use is "clean"; at the end of a file, once the queues drained, every clean store is checked again,
 *    which also catches a refused request that was queued anyway;
 * 3. no prototype pollution: after each request `({}).polluted` is undefined and `Object.prototype` gained no key (the
 *    handlers run in this process, with the local runtime).
 *
 * Runs are bounded (`FUZZ_RUNS`, default 100 per property) so the whole fuzz suite stays within a minute on 2 cores.
 */

import fc from 'fast-check';
import { expect } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamo } from '#shared/adapters/aws-clients.ts';
import { tableName } from '#shared/adapters/dynamodb/table.ts';
import { ScanCommand } from '#shared/adapters/dynamodb-client.ts';
import type { QueueName } from '#shared/catalog/queues.ts';
import { newStore, queueIsEmpty, type TestStore } from '#test/support/local.ts';

/** Runs per property: bounded so the suite takes under a minute on 2 cores. */
export const FUZZ_RUNS = Number(process.env.FUZZ_RUNS ?? 100);

/** fast-check parameters of every property: bounded, reproducible from the seed it prints on failure. */
export const fuzzParameters = (numRuns = FUZZ_RUNS): fc.Parameters<unknown> => ({ numRuns, endOnFailure: true });

export const startRuntime = (): Promise<LocalRuntime> =>
  startLocalRuntime({ logLevel: process.env.FUZZ_LOG_LEVEL ?? 'SILENT' });

// ---- Requests ------------------------------------------------------------------------------------------------------

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The parsed body (`undefined` when it was not JSON). */
  readonly json: unknown;
}

export interface Request {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  readonly url: string;
  readonly headers?: Record<string, string>;
  readonly body?: string | Uint8Array;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * One request. A 429 from a per-store rate limit is waited out and retried (at most 5 times): the suites are about
 * input, not pace, and a 429 would answer before the input is even read.
 */
export const send = async (request: Request): Promise<Answer> => {
  for (let attempt = 0; ; attempt++) {
    const response = await fetch(request.url, {
      method: request.method,
      headers: request.headers ?? {},
      ...(request.body === undefined ? {} : { body: request.body }),
    });
    const text = await response.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    const answer = { status: response.status, headers: response.headers, text, json };
    if (answer.status !== 429 || attempt >= 5 || !isRateLimit(answer)) return answer;
    await sleep(Number(response.headers.get('retry-after') ?? '1') * 1000 + 50);
  }
};

/** A per-store pace limit (not, say, the import slot's "one import every 10 seconds", which is an answer too). */
const isRateLimit = (answer: Answer): boolean => !/import/i.test(answer.text);

// ---- Invariants ----------------------------------------------------------------------------------------------------

const PROTOTYPE_KEYS = Object.getOwnPropertyNames(Object.prototype).sort();

/** Invariant 3: nothing reached `Object.prototype`. */
export const expectNoPollution = (context: string): void => {
  expect(({} as Record<string, unknown>).polluted, context).toBeUndefined();
  expect(Object.getOwnPropertyNames(Object.prototype).sort(), context).toEqual(PROTOTYPE_KEYS);
  expect(Object.prototype.toString.call([]), context).toBe('[object Array]');
};

/** Invariant 1: below 500 and JSON. `context` (the input) is printed when it fails. */
export const expectHandled = (answer: Answer, context: string): void => {
  expect(answer.status, `${context}\n→ ${answer.status} ${answer.text.slice(0, 300)}`).toBeLessThan(500);
  expect(answer.json, `${context}\n→ not JSON: ${answer.text.slice(0, 300)}`).not.toBeUndefined();
};

/** A short printable form of an input for failure messages. */
export const shown = (value: unknown, max = 400): string => {
  const text =
    typeof value === 'string'
      ? value
      : value instanceof Uint8Array
        ? Buffer.from(value).toString('latin1')
        : JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
};

// ---- Stores --------------------------------------------------------------------------------------------------------

/** Every item of the store's partitions (`STORE#<id>` and `STORE#<id>#…`), as `pk sk` lines, sorted. */
export const storeItems = async (storeId: string): Promise<string[]> => {
  const items: string[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(
      new ScanCommand({
        TableName: tableName(),
        FilterExpression: 'pk = :store OR begins_with(pk, :prefix)',
        ExpressionAttributeValues: { ':store': `STORE#${storeId}`, ':prefix': `STORE#${storeId}#` },
        ProjectionExpression: 'pk, sk',
        ConsistentRead: true,
        ExclusiveStartKey,
      }),
    );
    for (const item of page.Items ?? []) items.push(`${String(item.pk)} ${String(item.sk)}`);
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items.sort();
};

interface PooledStore extends TestStore {
  /** The store's items when it joined the pool. */
  readonly baseline: readonly string[];
}

/**
 * Clean stores, used in turn (spreading the per-store rate limits). `run` sends one request as a clean store and
 * checks invariant 2 when it is refused; a store that accepted something is replaced by a new one.
 */
export class StorePool {
  readonly #stores: PooledStore[] = [];
  readonly #retired: string[] = [];
  #next = 0;

  static async create(size: number, prepare?: (store: TestStore) => Promise<void>): Promise<StorePool> {
    const pool = new StorePool();
    pool.#prepare = prepare;
    for (let i = 0; i < size; i++) pool.#stores.push(await pool.#fresh());
    return pool;
  }

  #prepare: ((store: TestStore) => Promise<void>) | undefined;

  async #fresh(): Promise<PooledStore> {
    const store = await newStore('Fuzz');
    await this.#prepare?.(store);
    return { ...store, baseline: await storeItems(store.storeId) };
  }

  /** Stores that accepted something (their content is theirs to keep). */
  get retired(): readonly string[] {
    return this.#retired;
  }

  /**
   * Sends `request(store)` as the next clean store and checks invariants 1–3. A 2xx/3xx retires the store (304 =
   * duplicate, nothing new, but it proves the store accepted earlier). Returns the answer.
   */
  async run(request: (store: TestStore) => Request, context: string): Promise<Answer> {
    const index = this.#next++ % this.#stores.length;
    const store = this.#stores[index] as PooledStore;
    const sent = request(store);
    const answer = await send(sent);
    expectHandled(answer, context);
    expectNoPollution(context);
    if (answer.status < 400) {
      this.#retired.push(store.storeId);
      this.#stores[index] = await this.#fresh();
    } else {
      expect(await storeItems(store.storeId), `refused (${answer.status}) but stored: ${context}`).toEqual(
        store.baseline,
      );
    }
    return answer;
  }

  /** Invariant 2 at the end: with `queues` drained, every clean store still holds only its baseline. */
  async expectCleanStoresUntouched(runtime: LocalRuntime, queues: readonly QueueName[]): Promise<void> {
    await drained(runtime, queues);
    for (const store of this.#stores) expect(await storeItems(store.storeId), store.storeId).toEqual(store.baseline);
  }
}

/**
 * Waits until the given queues are empty twice in a row (nothing left to apply): the queues a refused request of the
 * suite could wrongly have reached. (Others may hold delayed work of accepted requests, e.g. flow waits.)
 */
export const drained = async (
  runtime: LocalRuntime,
  queues: readonly QueueName[],
  timeoutMs = 60_000,
): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  let empty = 0;
  while (empty < 2) {
    const all = await Promise.all(
      queues.map(async (name) => [name, await queueIsEmpty(runtime.queueUrls[name])] as const),
    );
    empty = all.every(([, isEmpty]) => isEmpty) ? empty + 1 : 0;
    if (Date.now() > deadline) {
      const busy = all.filter(([, isEmpty]) => !isEmpty).map(([name]) => name);
      throw new Error(`the queues did not drain within ${timeoutMs} ms: ${busy.join(', ')}`);
    }
    await sleep(100);
  }
};

// ---- Hostile values ------------------------------------------------------------------------------------------------

/** Keys that pollute a prototype when code copies objects naively. */
export const POLLUTION_KEYS = ['__proto__', 'constructor', 'prototype'] as const;

/** A pollution payload as JSON text: `{"__proto__":{"polluted":"yes"}}` and friends. */
export const pollutionJson = fc.constantFrom(
  '{"__proto__":{"polluted":"yes"}}',
  '{"constructor":{"prototype":{"polluted":"yes"}}}',
  '{"prototype":{"polluted":"yes"}}',
  '[{"__proto__":{"polluted":"yes"}}]',
);

/** Strings that break naive code: control characters, CR/LF (header injection), lone surrogates, long emoji runs. */
export const nastyString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom(
    '',
    ' ',
    '\r\n',
    'x\r\nX-Injected: yes',
    'Subject\r\nBcc: victim@example.com',
    '\u0000',
    '\ud800',
    '\udfff\ud800',
    '\u202e',
    '💥'.repeat(60),
    '<script>alert(1)</script>',
    '{{ 7 * 7 }}',
    '../../etc/passwd',
    '%00',
    'null',
    '1e999',
    'NaN',
  ),
);

/** A long string (64 KiB to 300 KiB: around and above the 256 KiB body limit once in a body). */
export const hugeString = fc
  .tuple(fc.integer({ min: 64, max: 300 }), fc.constantFrom('a', 'é', '💥', '\\', '"'))
  .map(([kib, unit]) => unit.repeat(Math.ceil((kib * 1024) / Buffer.byteLength(unit))));

/** Deeply nested arrays or objects, as JSON text (V8 parses thousands of levels; handlers must not recurse blindly). */
export const deepJson = fc
  .tuple(fc.integer({ min: 50, max: 20_000 }), fc.boolean())
  .map(([depth, objects]) =>
    objects ? `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}` : `${'['.repeat(depth)}1${']'.repeat(depth)}`,
  );

/** A JSON primitive likely to be the wrong type or out of range for a field, as JSON text. */
const wrongPrimitive = fc.oneof(
  fc.constantFrom('null', 'true', 'false', '0', '-1', '1e308', '-1e308', '0.5', '9007199254740993', '""', '[]', '{}'),
  fc.double({ noNaN: true }).map((n) => JSON.stringify(n)),
  fc.integer().map(String),
  nastyString.map((s) => JSON.stringify(s)),
);

/** Keys for random objects: field names the interfaces know, pollution keys and random strings. */
export const hostileKey = (known: readonly string[] = []) =>
  fc.oneof(
    ...(known.length > 0 ? [fc.constantFrom(...known)] : []),
    fc.constantFrom(...POLLUTION_KEYS),
    fc.string({ maxLength: 12 }),
  );

/** Any JSON text: random trees whose objects may carry pollution keys, plus deep, huge and pollution payloads. */
export const hostileJson = (known: readonly string[] = []): fc.Arbitrary<string> => {
  const { tree } = fc.letrec<{ tree: string; array: string; object: string }>((tie) => ({
    tree: fc.oneof({ depthSize: 'small' }, wrongPrimitive, tie('array'), tie('object')),
    array: fc.array(tie('tree'), { maxLength: 4 }).map((items) => `[${items.join(',')}]`),
    object: fc
      .array(fc.tuple(hostileKey(known), tie('tree')), { maxLength: 5 })
      .map((entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`),
  }));
  return fc.oneof(
    { weight: 6, arbitrary: tree },
    { weight: 1, arbitrary: pollutionJson },
    { weight: 1, arbitrary: deepJson },
    { weight: 1, arbitrary: hugeString.map((s) => JSON.stringify(s)) },
  );
};

// ---- Mutations of valid bodies -------------------------------------------------------------------------------------

type Path = (string | number)[];

/** Every path to a value inside `value` (objects and arrays included), the root excluded. */
const pathsOf = (value: unknown, prefix: Path = []): Path[] => {
  if (Array.isArray(value)) return value.flatMap((v, i) => [[...prefix, i], ...pathsOf(v, [...prefix, i])]);
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => [[...prefix, k], ...pathsOf(v, [...prefix, k])]);
  }
  return [];
};

const MARK = '\u0000fuzz-mark\u0000';

/**
 * `valid` with one change, as JSON text: the value at a random path replaced by hostile JSON, a (hostile) key added to
 * a random object, or a key removed. The text is built so that `__proto__` lands as an own key of the sent JSON.
 */
export const mutated = (valid: unknown, known: readonly string[] = []): fc.Arbitrary<string> =>
  fc
    .record({
      op: fc.constantFrom('replace', 'replace', 'add', 'remove'),
      at: fc.nat(),
      key: hostileKey(known),
      value: hostileJson(known),
    })
    .map(({ op, at, key, value }) => {
      const copy = structuredClone(valid) as Record<string, unknown>;
      const paths = pathsOf(copy);
      const path = paths.length > 0 ? (paths[at % paths.length] as Path) : [];
      const parentPath = op === 'add' ? path.slice(0, -1) : path.slice(0, -1);
      let parent: unknown = copy;
      for (const step of parentPath) parent = (parent as Record<string | number, unknown>)[step];
      const last = path[path.length - 1];
      const holder = parent as Record<string | number, unknown>;
      if (op === 'remove' && last !== undefined) {
        if (Array.isArray(holder)) holder.splice(Number(last), 1);
        else delete holder[last];
        return JSON.stringify(copy);
      }
      if (op === 'add') {
        const target = holder && typeof holder === 'object' && !Array.isArray(holder) ? holder : copy;
        // A placeholder key/value, swapped for the hostile ones in the text (a JS object cannot own `__proto__`).
        target[`${MARK}key`] = MARK;
        return JSON.stringify(copy)
          .replace(JSON.stringify(`${MARK}key`), JSON.stringify(key))
          .replace(JSON.stringify(MARK), value);
      }
      if (last === undefined) return value;
      holder[last] = MARK;
      return JSON.stringify(copy).replace(JSON.stringify(MARK), value);
    });

// ---- Raw bytes -----------------------------------------------------------------------------------------------------

/** Byte sequences that are not UTF-8: a lone continuation, an overlong form, a surrogate, a truncated sequence. */
const INVALID_UTF8 = [[0xff], [0xc3, 0x28], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf0, 0x9f, 0x92], [0x80], [0xfe, 0xfe]];

/** `text` as bytes with invalid UTF-8 inserted at a random place (often inside a string value). */
export const withInvalidUtf8 = (text: string): fc.Arbitrary<Uint8Array> =>
  fc.tuple(fc.nat(), fc.constantFrom(...INVALID_UTF8)).map(([at, bad]) => {
    const bytes = Buffer.from(text, 'utf8');
    const quote = bytes.indexOf(0x22, at % Math.max(1, bytes.length));
    const where = quote === -1 ? at % (bytes.length + 1) : quote + 1;
    return new Uint8Array(Buffer.concat([bytes.subarray(0, where), Buffer.from(bad), bytes.subarray(where)]));
  });

/** `text` cut short at a random place. */
export const truncated = (text: string): fc.Arbitrary<string> =>
  fc.nat({ max: Math.max(0, text.length - 1) }).map((at) => text.slice(0, at));

/** Content types a JSON route must refuse (or, for the JSON ones, accept and then validate). */
export const contentTypes = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/jsonx',
  '',
);
