/** The spec's endpoint values per interface ("Endpoints" section). */
export const GENERAL_ENDPOINTS = [
  'customers/create',
  'customers/update',
  'customers',
  'orders/create',
  'orders/paid',
  'orders/fulfilled',
  'orders/update',
  'orders/cancelled',
  'orders/refunded',
  'products/create',
  'products/update',
  'products',
  'carts/create',
  'carts/update',
  'carts',
  'checkouts/create',
  'checkouts/update',
  'page/viewed',
  'products/back_in_stock',
  'products/restock',
  'flow/notify',
] as const;
export type GeneralEndpoint = (typeof GENERAL_ENDPOINTS)[number];

export const HEADLESS_ENDPOINTS = [
  'page/viewed',
  'carts/create',
  'carts/update',
  'customers/create',
  'products/back_in_stock',
] as const;
export type HeadlessEndpoint = (typeof HEADLESS_ENDPOINTS)[number];

/** Which event interface accepted an event; payload shapes differ between them. */
export type EventInterface = 'general' | 'headless';

/** The spec's limit on `source_id` ("Limits": at most 50 characters). */
export const SOURCE_ID_MAX_CHARS = 50;
