/** `GET {base_url}/back-office`: who is signed in (session cookie) and the stores they may open. */

import { backOfficeAccess } from '#shared/domain/accounts/sign-in.ts';
import { backOfficePage, notSignedInPage } from '#shared/http/back-office-pages.ts';
import { httpRoute } from '#shared/http/route.ts';
import { sessionIdOf } from '#shared/http/session-cookie.ts';
import { signInDeps } from '#shared/wiring/accounts.ts';

export const handler = httpRoute({
  api: 'backOffice',
  auth: 'none',
  handle: async ({ event }) => {
    const sessionId = sessionIdOf(event);
    const access = await backOfficeAccess(signInDeps(), sessionId);
    return access ? backOfficePage(access) : notSignedInPage(Boolean(sessionId));
  },
});
