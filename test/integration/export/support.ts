/**
 * Helpers for the contact export tests (spec "Contact export"): contacts written straight into DynamoDB (fast enough for
 * tens of thousands), export calls paced to the 1 request/s per store limit, and raw HTTP to see the bytes on the wire.
 */
import { type IncomingHttpHeaders, request } from 'node:http';
import { seedContacts } from '#local/seed-contacts.ts';
import { dynamoContactCounts } from '#shared/adapters/dynamodb/contact-counts.ts';
import { dynamoCustomerRepository } from '#shared/adapters/dynamodb/customer.repository.ts';
import { COUNT_LEVELS, type CountLevel, LATEST_SECOND } from '#shared/domain/contacts/contact-counts.ts';
import type { ContactRecord } from '#shared/domain/contacts/model.ts';
import type { Customer } from '#shared/domain/customers/model.ts';
import { newId } from '#shared/domain/ids.ts';

/** A date in the contacts' creation range: 2023-11-14 22:13:20 UTC. */
export const BASE_SECONDS = 1_700_000_000;

/** Minimum gap between two export calls of one store (the limit is 1 request per store per fixed one-second window). */
export const GAP_MS = 1050;

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** A contact as the customer repository stores it; `overrides` replaces any field. */
export const contact = (storeId: string, createdAt: number, overrides: Partial<Customer> = {}): Customer => {
  const id = overrides.id ?? newId('ct');
  return {
    storeId,
    id,
    originId: `origin-${id}`,
    email: `${id.toLowerCase()}@example.com`,
    platformTags: [],
    categoryTags: [],
    attributes: {},
    createdAt,
    updatedAt: Date.now(),
    revision: 1,
    ...overrides,
  };
};

/** Writes new contacts in bulk (25 per call) with their counters: for large stores, where the write path is not the point. */
export const seedBulk = (contacts: readonly Customer[]): Promise<void> => seedContacts(contacts);

/** Writes contacts directly (the worker's own repository, which keeps the counters), 200 at a time. */
export const seed = async (contacts: readonly Customer[]): Promise<void> => {
  const repository = dynamoCustomerRepository();
  for (let i = 0; i < contacts.length; i += 200) {
    await Promise.all(contacts.slice(i, i + 200).map((c) => repository.save(c, 0)));
  }
};

/** Byte order of the ids (DynamoDB's order of string sort keys), not the locale's. */
const byBytes = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The export's order: creation time, then contact id. */
export const exportOrder = (contacts: readonly Customer[]): Customer[] =>
  [...contacts].sort((a, b) => a.createdAt - b.createdAt || byBytes(a.id, b.id));

export interface ExportBody {
  readonly page: number;
  readonly page_size: number;
  readonly total_count: number;
  readonly total_pages: number;
  readonly data: readonly ContactRecord[];
}

export type Query = Readonly<Record<string, string | number | undefined>>;

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Record<string, unknown>;
}

export interface RawAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /** The bytes as sent (still compressed when the answer says `content-encoding: gzip`). */
  readonly bytes: Buffer;
}

/** `GET` with `node:http`, which sends no `accept-encoding` of its own and does not decode the body. */
export const rawGet = (url: string, headers: Record<string, string>): Promise<RawAnswer> =>
  new Promise((resolve, reject) => {
    const req = request(url, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, bytes: Buffer.concat(chunks) }),
      );
    });
    req.on('error', reject);
    req.end();
  });

export interface Exporter {
  readonly url: (query?: Query) => string;
  /** Any answer, through `fetch` (which asks for and decodes gzip by itself); `apiKey: null` sends no key. */
  readonly get: (
    query?: Query,
    options?: { apiKey?: string | null; headers?: Record<string, string> },
  ) => Promise<Answer>;
  /** A page that must be answered 200. */
  readonly page: (query?: Query) => Promise<ExportBody>;
  /** The raw answer through `node:http`. */
  readonly raw: (query: Query, headers?: Record<string, string>) => Promise<RawAnswer>;
}

/**
 * The export of one store. Every call first waits until at least `GAP_MS` passed since the previous call started and
 * the second in which the previous answer arrived is over, so that no call of this store meets the 429.
 */
export const exporter = (frontUrl: string, apiKey: string): Exporter => {
  let lastStart = 0;
  let lastEnd = 0;
  const paced = async <T>(call: () => Promise<T>): Promise<T> => {
    await sleep(Math.max(lastStart + GAP_MS, Math.floor(lastEnd / 1000) * 1000 + 1010) - Date.now());
    lastStart = Date.now();
    try {
      return await call();
    } finally {
      lastEnd = Date.now();
    }
  };

  const url = (query: Query = {}) => {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value));
    const search = params.toString();
    return `${frontUrl}/api/v1/audience${search ? `?${search}` : ''}`;
  };

  const get: Exporter['get'] = (query = {}, options = {}) =>
    paced(async () => {
      const key = options.apiKey === undefined ? apiKey : options.apiKey;
      const headers: Record<string, string> = { ...options.headers };
      if (key !== null) headers['x-service-access-token'] = key;
      const response = await fetch(url(query), { headers });
      const text = await response.text();
      return { status: response.status, headers: response.headers, body: JSON.parse(text) as Record<string, unknown> };
    });

  return {
    url,
    get,
    async page(query = {}) {
      const answer = await get(query);
      if (answer.status !== 200) {
        throw new Error(`GET ${url(query)} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      }
      return answer.body as unknown as ExportBody;
    },
    raw: (query, headers = {}) => paced(() => rawGet(url(query), { 'x-service-access-token': apiKey, ...headers })),
  };
};

/** DynamoDB `Query` calls made while `work` ran. */
export const queriesDuring = async <T>(
  calls: () => Record<string, number>,
  work: () => Promise<T>,
): Promise<{ result: T; queries: number }> => {
  const before = calls().Query ?? 0;
  const result = await work();
  return { result, queries: (calls().Query ?? 0) - before };
};

/** Every contact counter of the store, level by level (`level:start` → n), empty buckets left out. */
export const countersOf = async (storeId: string): Promise<Record<string, number>> => {
  const counts = dynamoContactCounts();
  const all: Record<string, number> = {};
  for (const [level] of COUNT_LEVELS.entries()) {
    for (const bucket of await counts.buckets(storeId, level as CountLevel, 0, LATEST_SECOND)) {
      if (bucket.n !== 0) all[`${level}:${bucket.start}`] = bucket.n;
    }
  }
  return all;
};
