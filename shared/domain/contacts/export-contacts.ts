/**
 * The contact export (spec "Contact export"): pages of contacts in a stable order (creation time, then id), with
 * optional inclusive bounds on the creation time.
 *
 * DynamoDB has no offset, so the start of page N is a remembered position: each page served remembers where the next
 * one starts, and a page whose start is not known yet is reached from the nearest known one by reading keys only. A
 * client paging 1, 2, 3, … (what exports do) therefore pays one read of its page per request, whatever the page number.
 * Positions are kept for a day per store, page size and bounds; the total is counted once a minute.
 */

import type { Customer } from '#shared/domain/customers/model.ts';
import { validationError } from '#shared/errors.ts';
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

export interface ExportDeps {
  readonly contacts: ContactDirectory;
  readonly positions: ExportPositions;
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

export const exportContacts = async (deps: ExportDeps, storeId: string, query: ExportQuery): Promise<ExportPage> => {
  const bounds: Bounds = {
    ...(query.start !== undefined ? { start: query.start } : {}),
    ...(query.end !== undefined ? { end: query.end } : {}),
  };
  const queryKey = `${query.pageSize}|${query.start ?? ''}|${query.end ?? ''}`;

  let total = await deps.positions.cachedCount(storeId, queryKey);
  if (total === undefined) {
    total = await deps.contacts.count(storeId, bounds);
    await deps.positions.rememberCount(storeId, queryKey, total);
  }
  const totals = {
    page: query.page,
    page_size: query.pageSize,
    total_count: total,
    total_pages: Math.ceil(total / query.pageSize),
  };
  // No early answer past `total_pages`: the total is counted once a minute, and contacts added meanwhile after the
  // current page must still be served (a page that is really past the end reads nothing and comes back empty).

  // Walk forward from the nearest known page start, remembering each start on the way.
  let { page, position } = await deps.positions.nearest(storeId, queryKey, query.page);
  while (page < query.page) {
    position = await deps.contacts.skip(storeId, bounds, query.pageSize, position);
    page += 1;
    if (!position) return { ...totals, data: [] }; // fewer contacts than counted (deleted meanwhile)
    await deps.positions.remember(storeId, queryKey, page, position);
  }
  const { items, next } = await deps.contacts.page(storeId, bounds, query.pageSize, position);
  if (next && items.length === query.pageSize) await deps.positions.remember(storeId, queryKey, query.page + 1, next);
  return { ...totals, data: items.map(contactRecord) };
};
