/**
 * The contact export (spec "Contact export"): pages of contacts in a stable order (creation time, then id), with
 * optional inclusive bounds on the creation time.
 *
 * DynamoDB has no offset. Each page served remembers where the next one starts (kept a day per store, page size and
 * bounds), so an export paging 1, 2, 3, … pays one read of its page per request. A page whose start is not remembered
 * is found with the store's contact counters (`contact-counts.ts`, kept with every contact write): they give the total
 * of any bounds and the creation second where the page starts, so a cold jump to any page costs about what page 1
 * costs (a few hundred small counters, and the keys of the contacts before it within that one second).
 *
 * A store whose counters are not known to be exact (created before they existed, until `store count-contacts` has
 * counted it) is served the older way: a page whose start is not remembered is reached from the nearest remembered one
 * by reading keys only, and the total is counted once a minute.
 */

import type { Customer } from '#shared/domain/customers/model.ts';
import { validationError } from '#shared/errors.ts';
import { type ContactCounts, LATEST_SECOND, type RangeCounts, rangeCounts } from './contact-counts.ts';
import { type ContactRecord, contactRecord } from './model.ts';

export const EXPORT_PAGE_SIZE = { default: 1000, max: 5000 } as const;

export interface ExportQuery {
  readonly page: number;
  readonly pageSize: number;
  /** Inclusive bounds on the creation time, seconds. */
  readonly start?: number;
  readonly end?: number;
}

/** A position in the ordered contacts: opaque to the domain. */
export type Position = Record<string, unknown>;

export interface ContactDirectory {
  /** How many contacts fall within the bounds. */
  count(storeId: string, bounds: Bounds): Promise<number>;
  /** Up to `limit` contacts from `after` (exclusive) on, and the position after the last one (absent at the end). */
  page(
    storeId: string,
    bounds: Bounds,
    limit: number,
    after?: Position,
  ): Promise<{ items: Customer[]; next?: Position }>;
  /** Like `page`, reading only keys: to move a position forward cheaply. */
  skip(storeId: string, bounds: Bounds, count: number, after?: Position): Promise<Position | undefined>;
}

export interface Bounds {
  readonly start?: number;
  readonly end?: number;
}

/** Remembered page starts and totals, per store and query shape. */
export interface ExportPositions {
  /** The known start of page `page` (page 1 starts at the beginning and is never stored), or the nearest below. */
  nearest(storeId: string, queryKey: string, page: number): Promise<{ page: number; position?: Position }>;
  remember(storeId: string, queryKey: string, page: number, position: Position): Promise<void>;
  cachedCount(storeId: string, queryKey: string): Promise<number | undefined>;
  rememberCount(storeId: string, queryKey: string, count: number): Promise<void>;
}

/** Where a page too large for one response is put: answers a link to download it from, valid a few minutes. */
export interface LargePages {
  publish(storeId: string, json: string): Promise<string>;
}

export interface ExportDeps {
  readonly contacts: ContactDirectory;
  readonly positions: ExportPositions;
  readonly counts: ContactCounts;
  readonly largePages: LargePages;
}

const integer = (name: string, raw: string | undefined, min: number): number | undefined => {
  if (raw === undefined || raw === '') return undefined;
  if (!/^-?\d+$/.test(raw.trim())) throw validationError(`${name} must be an integer`);
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < min) throw validationError(`${name} must be at least ${min}`);
  return value;
};

/** The query string, with the spec's 400s (page_size above 5000, created_at_end below created_at_start). */
export const parseExportQuery = (query: Readonly<Record<string, string | undefined>>): ExportQuery => {
  const page = integer('page', query.page, 1) ?? 1;
  const pageSize = integer('page_size', query.page_size, 1) ?? EXPORT_PAGE_SIZE.default;
  if (pageSize > EXPORT_PAGE_SIZE.max) throw validationError(`page_size must be at most ${EXPORT_PAGE_SIZE.max}`);
  const start = integer('created_at_start', query.created_at_start, 0);
  const end = integer('created_at_end', query.created_at_end, 0);
  if (start !== undefined && end !== undefined && end < start) {
    throw validationError('created_at_end must not be below created_at_start');
  }
  return { page, pageSize, ...(start !== undefined ? { start } : {}), ...(end !== undefined ? { end } : {}) };
};

export interface ExportPage {
  readonly page: number;
  readonly page_size: number;
  readonly total_count: number;
  readonly total_pages: number;
  readonly data: readonly ContactRecord[];
}

const queryBounds = (query: ExportQuery): Bounds => ({
  ...(query.start !== undefined ? { start: query.start } : {}),
  ...(query.end !== undefined ? { end: query.end } : {}),
});

const totalsOf = (query: ExportQuery, total: number) => ({
  page: query.page,
  page_size: query.pageSize,
  total_count: total,
  total_pages: Math.ceil(total / query.pageSize),
});

export const exportContacts = async (deps: ExportDeps, storeId: string, query: ExportQuery): Promise<ExportPage> => {
  const bounds = queryBounds(query);
  const queryKey = `${query.pageSize}|${query.start ?? ''}|${query.end ?? ''}`;
  const counted = (await deps.counts.exact(storeId))
    ? await rangeCounts(deps.counts, storeId, query.start ?? 0, query.end ?? LATEST_SECOND)
    : undefined;
  const total = counted?.total ?? (await countedOnceAMinute(deps, storeId, queryKey, bounds));
  const totals = totalsOf(query, total);
  // With exact counters a page past the end reads nothing (spec: empty `data`, same totals). Without, the total may be
  // a minute old, and contacts added meanwhile after the current page must still be served.
  if (counted && (query.page - 1) * query.pageSize >= total) return { ...totals, data: [] };

  const start = await startOf(deps, storeId, queryKey, bounds, query, counted);
  if (!start) return { ...totals, data: [] }; // fewer contacts than counted (deleted meanwhile)
  const { items, next } = await deps.contacts.page(storeId, start.bounds, query.pageSize, start.after);
  // The next page starts where this one ended: paging 1, 2, 3, … neither skips nor repeats a contact that existed
  // when paging began, even while contacts are added before the current page.
  if (next && items.length === query.pageSize) await deps.positions.remember(storeId, queryKey, query.page + 1, next);
  return { ...totals, data: items.map(contactRecord) };
};

const countedOnceAMinute = async (deps: ExportDeps, storeId: string, queryKey: string, bounds: Bounds) => {
  const cached = await deps.positions.cachedCount(storeId, queryKey);
  if (cached !== undefined) return cached;
  const total = await deps.contacts.count(storeId, bounds);
  await deps.positions.rememberCount(storeId, queryKey, total);
  return total;
};

/** Where a page starts: after a position, or at the start of `bounds` (which may begin at a creation second). */
interface PageStart {
  readonly bounds: Bounds;
  readonly after?: Position;
}

const startOf = async (
  deps: ExportDeps,
  storeId: string,
  queryKey: string,
  bounds: Bounds,
  query: ExportQuery,
  counted: RangeCounts | undefined,
): Promise<PageStart | undefined> => {
  let { page, position } = await deps.positions.nearest(storeId, queryKey, query.page);
  if (page === query.page) return { bounds, ...(position ? { after: position } : {}) };

  // Not remembered: the counters say in which creation second the page starts, and how many contacts of that second
  // come before it; only their keys are read.
  const rank = await counted?.locate((query.page - 1) * query.pageSize);
  if (rank) {
    const from = { ...bounds, start: rank.second };
    if (rank.skip === 0) return { bounds: from };
    const after = await deps.contacts.skip(storeId, from, rank.skip);
    if (after) {
      await deps.positions.remember(storeId, queryKey, query.page, after);
      return { bounds, after };
    }
    // Counters and contacts disagree for a moment (a write between its item and its counters): walk this once.
  }

  // Without counters: walk forward from the nearest known page start, reading keys only, remembering each start.
  while (page < query.page) {
    position = await deps.contacts.skip(storeId, bounds, query.pageSize, position);
    page += 1;
    if (!position) return undefined;
    await deps.positions.remember(storeId, queryKey, page, position);
  }
  return { bounds, ...(position ? { after: position } : {}) };
};
