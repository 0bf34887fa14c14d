/**
 * CORS for the one route browsers call with a store's publishable key (`POST {front_url}/api/v1/headless/events`).
 * A preflight carries no key, so it cannot know the store: it answers any origin, and the POST itself refuses (403) an
 * origin the store has not allowed, before anything is read or recorded. Answers to an allowed origin carry
 * `Access-Control-Allow-Origin` with that origin, so the page can read them, errors included.
 */

/** The request headers a storefront page sends. */
export const CORS_REQUEST_HEADERS = 'content-type, x-service-access-token';
/** How long a browser may reuse a preflight answer (seconds). */
export const CORS_PREFLIGHT_MAX_AGE_SECONDS = 600;

/** The headers that let a page on `origin` read the answer. */
export const corsHeaders = (origin: string): Record<string, string> => ({
  'access-control-allow-origin': origin,
  vary: 'origin',
});

/** The answer to a preflight from `origin` for `methods`. */
export const preflightHeaders = (origin: string, methods: string): Record<string, string> => ({
  ...corsHeaders(origin),
  'access-control-allow-methods': methods,
  'access-control-allow-headers': CORS_REQUEST_HEADERS,
  'access-control-max-age': String(CORS_PREFLIGHT_MAX_AGE_SECONDS),
});

/** Whether a page on `origin` may use the publishable key of a store that allows `allowed`. */
export const originAllowed = (origin: string, allowed: readonly string[]): boolean =>
  allowed.includes(origin.trim().toLowerCase());

/** The message of the 403 a publishable key gets without an `Origin` header: from a server rather than a page. */
export const PUBLISHABLE_KEY_BROWSERS_ONLY =
  "A publishable key (pk_…) works from the store's storefront pages only (a request with an Origin header); a server uses the store key";

/** The message of the 401 a publishable key gets anywhere but the headless event route. */
export const PUBLISHABLE_KEY_ONLY =
  'A publishable key (pk_…) only posts headless events (POST /api/v1/headless/events); use the store key here';
