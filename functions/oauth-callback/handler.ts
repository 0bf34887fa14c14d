/** `GET {base_url}/oauth/callback?token=…`: the sign-in link. Opens a back-office session once, then refuses. */

import { consumeSignInLink } from '#shared/domain/accounts/sign-in.ts';
import { htmlPage } from '#shared/http/back-office-pages.ts';
import { httpRoute } from '#shared/http/route.ts';
import { SignInTokenQuery } from '#shared/http/route-inputs.ts';
import { sessionCookie } from '#shared/http/session-cookie.ts';
import { signInDeps } from '#shared/wiring/accounts.ts';

const REFUSALS = {
  unknown: [400, 'This sign-in link is not valid', 'Check that the whole link was opened, or ask for a new one.'],
  used: [410, 'This sign-in link was already used', 'A sign-in link works once. Ask for a new one.'],
  expired: [410, 'This sign-in link has expired', 'A sign-in link works for 5 minutes. Ask for a new one.'],
} as const;

export const handler = httpRoute({
  query: SignInTokenQuery,
  api: 'backOffice',
  auth: 'none',
  handle: async ({ query }) => {
    const result = await consumeSignInLink(signInDeps(), query.token);
    if (result.outcome !== 'signed_in') {
      const [status, title, message] = REFUSALS[result.outcome];
      return htmlPage(status, title, message);
    }
    // 303: the browser follows with a GET, and the token leaves the address bar.
    return htmlPage(303, 'Signed in', 'Continue to the back office at /back-office.', { location: '/back-office' }, [
      sessionCookie(result.sessionId),
    ]);
  },
});
