/**
 * `{base_url}/oauth/callback?token=…`: the sign-in link. `GET` (what a link scanner or a mail preview fetches too)
 * shows a Continue button and uses nothing; its `POST` uses the link up, once, and opens the back-office session.
 */

import { consumeSignInLink } from '#shared/domain/accounts/sign-in.ts';
import { continueSignInPage, htmlPage } from '#shared/http/back-office-pages.ts';
import { httpRoute } from '#shared/http/route.ts';
import { SignInTokenQuery } from '#shared/http/route-inputs.ts';
import { isSameOrigin } from '#shared/http/same-origin.ts';
import { sessionCookie } from '#shared/http/session-cookie.ts';
import { signInDeps } from '#shared/wiring/accounts.ts';

const REFUSALS = {
  unknown: [400, 'This sign-in link is not valid', 'Check that the whole link was opened, or ask for a new one.'],
  used: [410, 'This sign-in link was already used', 'A sign-in link works once. Ask for a new one.'],
  expired: [410, 'This sign-in link has expired', 'A sign-in link works for 5 minutes. Ask for a new one.'],
} as const;

/** A well-formed link token: 43 base64url characters. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export const handler = httpRoute({
  query: SignInTokenQuery,
  api: 'backOffice',
  auth: 'none',
  handle: async ({ query, event }) => {
    if (event.requestContext.http.method !== 'POST') {
      if (query.token && TOKEN.test(query.token)) return continueSignInPage(query.token);
      const [status, title, message] = REFUSALS.unknown;
      return htmlPage(status, title, message);
    }
    if (!isSameOrigin(event)) {
      return htmlPage(403, 'Cross-site request refused', 'Open the sign-in link itself and press Continue.');
    }
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
