/** `GET {base_url}/back-office`: who is signed in (session cookie) and the stores they may open. */

import { backOfficeAccess } from '#shared/domain/accounts/sign-in.ts';
import { backOfficePage, htmlPage } from '#shared/http/back-office-pages.ts';
import { httpRoute } from '#shared/http/route.ts';
import { clearedSessionCookie, sessionIdOf } from '#shared/http/session-cookie.ts';
import { signInDeps } from '#shared/wiring/accounts.ts';

export const handler = httpRoute({
  api: 'backOffice',
  auth: 'none',
  handle: async ({ event }) => {
    const sessionId = sessionIdOf(event);
    const access = await backOfficeAccess(signInDeps(), sessionId);
    if (access) return backOfficePage(access);
    return htmlPage(
      401,
      'You are not signed in',
      'Your session has ended or was never started. Sign in again with a new sign-in link.',
      {},
      sessionId ? [clearedSessionCookie()] : undefined,
    );
  },
});
