/**
 * Cross-site request refusal for the back office's state-changing routes (sign-in, sign-out). SameSite=Lax already
 * keeps the session cookie off cross-site POSTs; checking `Origin` as well refuses a forged form whatever the cookie
 * policy of the browser (and a login CSRF, which needs no cookie). Browsers send `Origin` on every POST; a request
 * without one comes from a client that is not a browser, which cannot be made to forge it, and is let through.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { config } from '#shared/config.ts';

/** True when the request's `Origin` is absent or this service's own (its host, or the public main URL's). */
export const isSameOrigin = (event: APIGatewayProxyEventV2): boolean => {
  const origin = event.headers.origin;
  if (origin === undefined) return true;
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    return false;
  }
  const own = new Set([event.headers.host, event.requestContext?.domainName].filter((h): h is string => Boolean(h)));
  const publicMain = config().publicMainUrl;
  if (publicMain) own.add(new URL(publicMain).host);
  return own.has(host);
};
