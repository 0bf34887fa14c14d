/**
 * Hostile input on the contact export's query string (`GET {front}/api/v1/audience?…`, also `append` of the import
 * routes) and on the batch import's multipart body (`POST /api/v1/batch/customers?append=update`): random keys and
 * values, repeated keys, escapes that do not decode, huge values; malformed multipart (boundaries, headers, CR/LF in
 * names, missing parts) and hostile files (invalid UTF-8, non-JSON lines, pollution keys). Never a 5xx, a refused
 * request stores nothing, no prototype pollution (see support.ts).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { LocalRuntime } from '#local/runtime.ts';
import type { TestStore } from '#test/support/local.ts';
import {
  FUZZ_RUNS,
  fuzzParameters,
  hostileJson,
  nastyString,
  type Request,
  StorePool,
  shown,
  startRuntime,
} from './support.ts';

let runtime: LocalRuntime;
let pool: StorePool;

beforeAll(async () => {
  runtime = await startRuntime();
  // The export allows one request per second per store: enough stores that the suite rarely waits.
  pool = await StorePool.create(12);
});

afterAll(async () => {
  await runtime?.stop();
});

const auth = (store: TestStore) => ({ 'x-service-access-token': store.apiKey });

/** A query value: numbers near the limits, nasty strings percent-encoded, or raw escapes that do not decode. */
const queryValue = fc.oneof(
  fc.constantFrom('1', '0', '-1', '5000', '5001', '1e3', '1.5', '9007199254740993', '', ' 1', '0x10', 'NaN'),
  fc.integer().map(String),
  nastyString.map((s) => [...Buffer.from(s, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')),
  // Long, but the whole request line stays under Node's 16 KiB header limit (beyond it Node itself answers 431).
  fc.constantFrom('%ff', '%c3%28', '%zz', '%', '%0d%0aX-Injected:%20yes', 'a'.repeat(2_000)),
);
const queryKey = fc.oneof(
  fc.constantFrom('page', 'page_size', 'created_at_start', 'created_at_end', 'append', '__proto__', 'constructor'),
  fc.string({ maxLength: 10 }).map(encodeURIComponent),
  fc.constantFrom('%ff', 'page%00', 'page[]', 'page_size%5B%5D'),
);
const queryString = fc
  .array(fc.tuple(queryKey, queryValue), { maxLength: 6 })
  .map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join('&'));

describe('export query strings', () => {
  it('answers any query without a 5xx, storing nothing when it refuses', async () => {
    await fc.assert(
      fc.asyncProperty(queryString, async (query) => {
        await pool.run(
          (store): Request => ({
            method: 'GET',
            url: `${runtime.urls.front}/api/v1/audience?${query}`,
            headers: auth(store),
          }),
          `GET /api/v1/audience?${shown(query)}`,
        );
      }),
      fuzzParameters(Math.min(FUZZ_RUNS, 60)),
    );
  });

  it('answers any append on the upload URL route without a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(queryString, async (query) => {
        await pool.run(
          (store): Request => ({
            method: 'POST',
            url: `${runtime.urls.main}/api/v1/batch/customers/uploads?${query}`,
            headers: auth(store),
          }),
          `POST /api/v1/batch/customers/uploads?${shown(query)}`,
        );
      }),
      fuzzParameters(Math.min(FUZZ_RUNS, 60)),
    );
  });
});

// ---- Multipart ---------------------------------------------------------------------------------------------------

const CRLF = '\r\n';

/** A JSONL file: valid lines, hostile JSON lines, garbage; or raw bytes with invalid UTF-8. */
const fileContent: fc.Arbitrary<Buffer> = fc.oneof(
  fc
    .array(
      fc.oneof(
        fc.constant(JSON.stringify({ id: 'c-1', email: 'a@example.com', created_at: 1_700_000_000 })),
        hostileJson(['id', 'email', 'created_at', 'first_name', 'tags']),
        nastyString,
      ),
      { maxLength: 8 },
    )
    .map((lines) => Buffer.from(lines.join('\n'))),
  fc
    .uint8Array({ maxLength: 200 })
    .map((bytes) => Buffer.concat([Buffer.from('{"id":"c-2","email":"'), Buffer.from(bytes), Buffer.from('"}')])),
);

/** A header value or name for a part: ordinary, or with quotes, CR/LF, non-ASCII, empty. */
const partToken = fc.oneof(
  fc.constantFrom('dataFile', 'datafile', 'file', '', 'dataFile"; filename="x', 'data\r\nFile', 'dätaFile'),
  fc.string({ maxLength: 12 }),
);

interface Multipart {
  readonly contentType: string;
  readonly body: Buffer;
}

/** Multipart bodies from well-formed to broken: the boundary, the part headers, the closing delimiter. */
const multipart: fc.Arbitrary<Multipart> = fc
  .record({
    boundary: fc.oneof(fc.constant('----fuzzBoundary42'), fc.string({ minLength: 1, maxLength: 70 })),
    declared: fc.constantFrom('same', 'other', 'missing', 'quoted'),
    name: partToken,
    filename: fc.oneof(partToken, fc.constant(undefined)),
    partType: fc.constantFrom('application/x-ndjson', 'application/json', 'text/plain', ''),
    content: fileContent,
    closing: fc.constantFrom('proper', 'missing', 'no-final-dashes'),
    extraParts: fc.nat({ max: 3 }),
  })
  .map(({ boundary, declared, name, filename, partType, content, closing, extraParts }) => {
    const disposition = `Content-Disposition: form-data; name="${name}"${filename === undefined ? '' : `; filename="${filename}"`}`;
    const head = [`--${boundary}`, disposition, ...(partType ? [`Content-Type: ${partType}`] : []), '', ''].join(CRLF);
    const extra = Array.from({ length: extraParts }, (_, i) =>
      [`--${boundary}`, `Content-Disposition: form-data; name="x${i}"`, '', `value ${i}`, ''].join(CRLF),
    ).join('');
    const end =
      closing === 'proper'
        ? `${CRLF}--${boundary}--${CRLF}`
        : closing === 'no-final-dashes'
          ? `${CRLF}--${boundary}${CRLF}`
          : '';
    const contentType =
      declared === 'same'
        ? `multipart/form-data; boundary=${boundary}`
        : declared === 'quoted'
          ? `multipart/form-data; boundary="${boundary}"`
          : declared === 'other'
            ? 'multipart/form-data; boundary=not-the-boundary'
            : 'multipart/form-data';
    return { contentType, body: Buffer.concat([Buffer.from(extra + head), content, Buffer.from(end)]) };
  });

describe('batch import multipart bodies', () => {
  it('answers any multipart body without a 5xx, storing nothing when it refuses', async () => {
    await fc.assert(
      fc.asyncProperty(
        multipart,
        fc.constantFrom('append=update', 'append=update', 'append=replace', ''),
        async (m, query) => {
          await pool.run(
            (store): Request => ({
              method: 'POST',
              url: `${runtime.urls.main}/api/v1/batch/customers?${query}`,
              headers: { ...auth(store), 'content-type': m.contentType },
              body: new Uint8Array(m.body),
            }),
            `POST /api/v1/batch/customers?${query} [${m.contentType}] ${shown(m.body.toString('latin1'))}`,
          );
        },
      ),
      fuzzParameters(),
    );
  });
});

describe('after the hostile input', () => {
  it('left every store that refused everything exactly as it was, once the import worker finished', async () => {
    await pool.expectCleanStoresUntouched(runtime, ['imports']);
  }, 90_000);
});
