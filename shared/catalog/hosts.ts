/** The spec's hosts and the shape of an HTTP route of the catalog. Pure data. */
/** The spec's three hosts: main `{base_url}`, front `{front_url}` (and `{front_test_url}` per stage), sending `{sending_url}`. */
export type Host = 'main' | 'front' | 'sending';
export const HOSTS: readonly Host[] = ['main', 'front', 'sending'];

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface Route {
  readonly host: Host;
  readonly method: HttpMethod;
  /** API Gateway v2 route path, `{name}` for path parameters. */
  readonly path: string;
}
