/**
 * Cross-site request refusal for the back office's state-changing routes (sign-in, sign-out). SameSite=Lax already
 * keeps the session cookie off cross-site POSTs; checking `Origin` as well refuses a forged form whatever the cookie
 * policy of the browser (and a login CSRF, which needs no cookie). Browsers send `Origin` on every POST; a request
 * without one comes from a client that is not a browser, which cannot be made to forge it, and is let through.
 *
 * An origin is a scheme, a host and a port, all three compared: `http://` + the service's host is another origin (a
 * page served over plain HTTP on a hostile network could post as it otherwise). The request's own scheme is the one
 * API Gateway reports in `X-Forwarded-Proto` (HTTPS when absent, the only scheme it serves).
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { config } from '#shared/config.ts';

const originOf = (url: string): string | undefined => {
  try {
    const { origin } = new URL(url);
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
};

/** True when the request's `Origin` is absent or this service's own (its host over its scheme, or the public main URL's). */
export const isSameOrigin = (event: APIGatewayProxyEventV2): boolean => {
  const origin = event.headers.origin;
  if (origin === undefined) return true;
  const asked = originOf(origin);
  if (asked === undefined) return false;
  const scheme = event.headers['x-forwarded-proto']?.split(',')[0]?.trim() || 'https';
  const own = new Set(
    [event.headers.host, event.requestContext?.domainName]
      .filter((host): host is string => Boolean(host))
      .map((host) => originOf(`${scheme}://${host}`)),
  );
  const publicMain = config().publicMainUrl;
  if (publicMain) own.add(originOf(publicMain));
  return own.has(asked);
};
