/** `POST {base_url}/back-office/sign-out`: ends the session and clears its cookie. */

import { signOut } from '#shared/domain/accounts/sign-in.ts';
import { htmlPage } from '#shared/http/back-office-pages.ts';
import { httpRoute } from '#shared/http/route.ts';
import { isSameOrigin } from '#shared/http/same-origin.ts';
import { clearedSessionCookie, sessionIdOf } from '#shared/http/session-cookie.ts';
import { signInDeps } from '#shared/wiring/accounts.ts';

export const handler = httpRoute({
  api: 'backOffice',
  auth: 'none',
  handle: async ({ event }) => {
    // A forged cross-site form cannot sign the person out (nor anything else later added here).
    if (!isSameOrigin(event)) return htmlPage(403, 'Cross-site request refused', 'Sign out from the back office page.');
    await signOut(signInDeps(), sessionIdOf(event));
    return htmlPage(200, 'You are signed out', 'Open a new sign-in link to sign in again.', {}, [
      clearedSessionCookie(),
    ]);
  },
});
