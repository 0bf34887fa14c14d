/** The spec's hosts and the shape of an HTTP route of the catalog. Pure data. */
/** The spec's three hosts: main `{base_url}`, front `{front_url}` (and `{front_test_url}` per stage), sending `{sending_url}`. */
export type Host = 'main' | 'front' | 'sending';
export const HOSTS: readonly Host[] = ['main', 'front', 'sending'];

/**
 * Each host's stage throttling: requests per second and the burst above it (API Gateway's token bucket), which an
 * HTTP API applies to each route of the stage on its own, not to the host as a whole (docs/capacity.md "Concurrency
 * fences"; the event routes are capped by their reserved concurrency too). The per-store rate limits (docs/limits.md) share a store's part; these bound what every store together
 * can ask of the account's Lambda concurrency, so a flood answers 429 at the edge instead of starving the workers.
 * docs/capacity.md shows the arithmetic.
 */
export const HOST_THROTTLE: Readonly<Record<Host, { readonly ratePerSecond: number; readonly burst: number }>> = {
  main: { ratePerSecond: 1000, burst: 2000 },
  front: { ratePerSecond: 500, burst: 1000 },
  sending: { ratePerSecond: 200, burst: 400 },
};

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'OPTIONS';

export interface Route {
  readonly host: Host;
  readonly method: HttpMethod;
  /** API Gateway v2 route path, `{name}` for path parameters. */
  readonly path: string;
}
