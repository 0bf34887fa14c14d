/**
 * The back-office session cookie: HttpOnly (no script reads it), Secure (HTTPS only; browsers treat 127.0.0.1 and
 * localhost as secure, so it works on the local runtime too), SameSite=Lax (not sent on cross-site POSTs), whole site.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { SESSION_COOKIE, SESSION_TTL_MS } from '#shared/domain/accounts/sign-in.ts';

const ATTRIBUTES = 'HttpOnly; Secure; SameSite=Lax; Path=/';

export const sessionCookie = (sessionId: string): string =>
  `${SESSION_COOKIE}=${sessionId}; ${ATTRIBUTES}; Max-Age=${Math.floor(SESSION_TTL_MS / 1000)}`;

export const clearedSessionCookie = (): string => `${SESSION_COOKIE}=; ${ATTRIBUTES}; Max-Age=0`;

/** The session id the browser sent: API Gateway v2 puts cookies in `cookies`; a plain `Cookie` header also counts. */
export const sessionIdOf = (event: APIGatewayProxyEventV2): string | undefined => {
  const pairs = [...(event.cookies ?? []), ...(event.headers.cookie ?? '').split(';')];
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at > 0 && pair.slice(0, at).trim() === SESSION_COOKIE) return pair.slice(at + 1).trim() || undefined;
  }
  return undefined;
};
