import { type Agent, get as httpGet, type IncomingHttpHeaders } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { countDelta } from '#bench/lib/runtime-probes.ts';
import { samplePerson } from '#bench/lib/sample-people.ts';
import { round, sleep } from '#bench/lib/stats.ts';
import { READ_KINDS, type ReadKind, type ReadMeter, type ReadTally, tallyDelta } from '#local/read-meter.ts';
import type { LocalRuntime } from '#local/runtime.ts';
import { seedContactCounts, seedContacts } from '#local/seed-contacts.ts';
import { FUNCTIONS } from '#shared/catalog/functions.ts';
import type { ExportPage } from '#shared/domain/contacts/export-contacts.ts';
import type { ContactRecord } from '#shared/domain/contacts/model.ts';
import type { Customer } from '#shared/domain/customers/model.ts';
import { newId } from '#shared/domain/ids.ts';
import { createStore } from '#shared/domain/stores/manage-stores.ts';
import { storeAdminDeps } from '#shared/wiring/store-admin.ts';

/**
 * The case: 100,000 contacts at page size 5,000 (about 2 minutes on 2 cores). With another `--count` the page
 * size follows (a twentieth of the count, at most the spec's 5,000), so there is always a page 20 to compare with 1.
 */
export const DEFAULT_COUNT = 100_000;
export const MAX_PAGE_SIZE = 5_000;
export const PAGES = 20;
/** Start-to-start gap between two requests of the store (its limit is 1 request/s). */
export const PACE_MS = 1_050;
/** Lambda's synchronous response payload limit, 6 MB, taken as 6,000,000 bytes (AWS's 6 MB is 6 MiB: this is stricter). */
export const LAMBDA_RESPONSE_LIMIT_BYTES = 6_000_000;
export const MB = 1_000_000;
/** Creation times: from 2022-01-01 00:00:00 UTC, two contacts per second, one such second every 15 minutes. */
export const T0 = 1_640_995_200;
export const CREATED_STEP_S = 900;
/** Every how many contacts a record is compared in full with what was seeded. */
export const RECORD_CHECK_EVERY = 97;
export const MAX_429_RETRIES = 3;
export const EXPORT_FUNCTION = FUNCTIONS.find((f) => f.name === 'contacts-export');

// ---- Seeded contacts ------------------------------------------------------------------------------------------------

/** Contact `i` of the seeded store (its id is the only random part, drawn once at seeding). */
export const customerAt = (storeId: string, i: number, id: string, updatedAt: number): Customer => {
  const createdAt = T0 + Math.floor(i / 2) * CREATED_STEP_S;
  const person = samplePerson(i, createdAt);
  return {
    storeId,
    id,
    originId: String(7_100_000_000 + i),
    email: person.email,
    phone: person.phone,
    firstName: person.firstName,
    lastName: person.lastName,
    countryCode: person.place.country,
    locale: person.place.locale,
    gender: person.gender,
    birthDate: person.birthDate,
    city: person.place.city,
    emailConsent: person.emailConsent,
    smsConsent: person.smsConsent,
    defaultAddress: person.address,
    platformTags: person.platformTags,
    categoryTags: person.categoryTags,
    attributes: {},
    createdAt,
    updatedAt,
    revision: 1,
  };
};

export interface Seeded {
  readonly storeId: string;
  readonly apiKey: string;
  /** Contact ids by seed index. */
  readonly ids: readonly string[];
  readonly indexOf: ReadonlyMap<string, number>;
  readonly updatedAt: number;
  readonly elapsedMs: number;
}

/** Contacts built and written per round: bounds the memory a million-contact seed holds at once. */
const SEED_CHUNK = 10_000;

/**
 * Creates the store and writes `count` contacts through batch writes (25 items per `BatchWriteItem`, eight calls in
 * flight), then the export's contact counters, whole, through batch writes too (`local/seed-contacts.ts`): the
 * creation times spread over nearly a bucket per contact at the finer levels, so adding them per chunk took an
 * `UpdateItem` per counter item, ~62,500 single calls for 100,000 contacts (113,000 when each bucket had an item). The search's
 * lookup items are left out: the export reads only the contacts' creation-time index, and writing 300,000 lookups for
 * 100,000 contacts took most of what was left of the seeding.
 */
export const seed = async (count: number, log: (line: string) => void): Promise<Seeded> => {
  const { store, apiKey } = await createStore(storeAdminDeps(), { name: 'Bench export store', type: 'direct' });
  const ids = Array.from({ length: count }, () => newId('ct'));
  const updatedAt = Date.now();
  const start = performance.now();
  let reported = start;
  const createdAt: number[] = [];
  for (let from = 0; from < count; from += SEED_CHUNK) {
    const chunk: Customer[] = [];
    for (let i = from; i < Math.min(count, from + SEED_CHUNK); i++) {
      chunk.push(customerAt(store.storeId, i, ids[i] as string, updatedAt));
    }
    for (const contact of chunk) createdAt.push(contact.createdAt);
    await seedContacts(chunk, { counters: false, lookups: false });
    if (performance.now() - reported >= 10_000) {
      reported = performance.now();
      log(`export: ${from + chunk.length} of ${count} contacts written (${Math.round((reported - start) / 1000)} s)`);
    }
  }
  const counted = performance.now();
  await seedContactCounts(store.storeId, createdAt);
  log(`export: contact counters written in ${Math.round((performance.now() - counted) / 1000)} s`);
  const elapsedMs = performance.now() - start;
  const indexOf = new Map(ids.map((id, i) => [id, i]));
  return { storeId: store.storeId, apiKey, ids, indexOf, updatedAt, elapsedMs };
};

// ---- The read meter (local/read-meter.ts) ----------------------------------------------------------------------

/** Every read of a page but the total's once-a-minute count (stores without exact counters pay it on page 1). */
export const WITHOUT_COUNT: readonly ReadKind[] = READ_KINDS.filter((kind) => kind !== 'count');
export const QUERY_KINDS: readonly ReadKind[] = ['page', 'skip', 'count', 'counters', 'positions'];
export const queryCalls = (tally: ReadTally, kinds = QUERY_KINDS) =>
  kinds.reduce((n, kind) => n + tally[kind].calls, 0);
export const capacityOf = (tally: ReadTally) =>
  round(
    READ_KINDS.reduce((n, kind) => n + tally[kind].capacity, 0),
    1,
  );

// ---- Requests -------------------------------------------------------------------------------------------------------

export interface RawResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  /** Request start to the last byte of the body. */
  readonly latencyMs: number;
  /** Request start to the response headers. */
  readonly ttfbMs: number;
}

export const getRaw = (agent: Agent, url: string, apiKey: string): Promise<RawResponse> =>
  new Promise((resolve, reject) => {
    const start = performance.now();
    const request = httpGet(
      url,
      { agent, headers: { 'x-service-access-token': apiKey, 'accept-encoding': 'gzip' } },
      (response) => {
        const ttfbMs = performance.now() - start;
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.once('error', reject);
        response.once('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks),
            latencyMs: performance.now() - start,
            ttfbMs,
          }),
        );
      },
    );
    request.once('error', reject);
  });

/** What one export request measured. */
export interface Sample {
  readonly label: string;
  readonly page: number;
  readonly status: number;
  readonly latencyMs: number;
  readonly ttfbMs: number;
  /** Client-side gunzip and JSON parse (not in the latency). */
  readonly decodeMs: number;
  readonly encoding: string;
  /** Body bytes on the wire. */
  readonly compressedBytes: number;
  /** Body bytes once decoded: what a client without gzip would receive. */
  readonly decodedBytes: number;
  /** The Lambda response payload of this answer as served (base64 of the gzipped body in the result JSON). */
  readonly lambdaPayloadBytes: number;
  /** The Lambda response payload the same page makes for a client that does not accept gzip. */
  readonly plainLambdaPayloadBytes: number;
  readonly records: number;
  readonly answer: Omit<ExportPage, 'data'> | undefined;
  /** Runtime's DynamoDB operation counts during the request. */
  readonly operations: Record<string, number>;
  readonly reads: ReadTally;
  readonly rateLimited: number;
  readonly data: readonly ContactRecord[];
}

/** The Lambda result `toResult` (shared/http/route.ts) builds for a body, serialized as the invoke response. */
export const lambdaPayloadBytes = (decoded: string, gzipped: Buffer | undefined): number =>
  Buffer.byteLength(
    JSON.stringify(
      gzipped
        ? {
            statusCode: 200,
            headers: {
              'content-type': 'application/json; charset=utf-8',
              'content-encoding': 'gzip',
              vary: 'accept-encoding',
            },
            body: gzipped.toString('base64'),
            isBase64Encoded: true,
          }
        : { statusCode: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: decoded },
    ),
  );

/** One export request after the pacing gap; a 429 (the pacing missed) is retried after another gap and counted. */
export const exportRequest = async (
  context: { runtime: LocalRuntime; agent: Agent; meter: ReadMeter; apiKey: string; pace: () => Promise<void> },
  label: string,
  query: Record<string, string | number>,
): Promise<Sample> => {
  const search = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]));
  const url = `${context.runtime.urls.front}/api/v1/audience?${search}`;
  let rateLimited = 0;
  for (;;) {
    await context.pace();
    const operationsBefore = context.runtime.dynamodbCalls();
    const readsBefore = context.meter.read();
    const response = await getRaw(context.agent, url, context.apiKey);
    const operations = countDelta(operationsBefore, context.runtime.dynamodbCalls());
    const reads = tallyDelta(readsBefore, context.meter.read());
    if (response.status === 429 && rateLimited < MAX_429_RETRIES) {
      rateLimited++;
      continue;
    }
    const decodeStart = performance.now();
    const encoding = String(response.headers['content-encoding'] ?? 'identity');
    const decoded = (encoding === 'gzip' ? gunzipSync(response.body) : response.body).toString('utf8');
    let answer: ExportPage | undefined;
    try {
      answer = JSON.parse(decoded) as ExportPage;
    } catch {
      answer = undefined;
    }
    const decodeMs = performance.now() - decodeStart;
    if (response.status !== 200 || !answer || !Array.isArray(answer.data)) {
      throw new Error(`export: ${label} answered HTTP ${response.status}: ${decoded.slice(0, 300)}`);
    }
    const { data, ...totals } = answer;
    return {
      label,
      page: Number(query.page),
      status: response.status,
      latencyMs: response.latencyMs,
      ttfbMs: response.ttfbMs,
      decodeMs,
      encoding,
      compressedBytes: response.body.byteLength,
      decodedBytes: Buffer.byteLength(decoded),
      lambdaPayloadBytes: lambdaPayloadBytes(decoded, encoding === 'gzip' ? response.body : undefined),
      plainLambdaPayloadBytes: lambdaPayloadBytes(decoded, undefined),
      records: data.length,
      answer: totals,
      operations,
      reads,
      rateLimited,
      data,
    };
  }
};

/** Start-to-start pacing of one store's requests. */
export const pacer = () => {
  let nextAt = 0;
  return async () => {
    const wait = nextAt - performance.now();
    if (wait > 0) await sleep(wait);
    nextAt = performance.now() + PACE_MS;
  };
};
