/**
 * OAuth sign-in on `{base_url}`: `{message, state, success, timestamp, data?}` answers (spec "OAuth sign-in",
 * docs/oauth.md). The link it answers and the back-office pages behind it are for browsers (HTML, a session cookie)
 * and are excluded in `index.ts`.
 */
import * as v from 'valibot';
import { SignInRequest } from '#shared/domain/accounts/sign-in.ts';
import { ref } from '#shared/http/openapi/components.ts';
import { route } from '#shared/http/openapi/registry.ts';
import { DATA } from '#shared/http/openapi/shapes.ts';
import { oauthReply } from '#shared/http/responses.ts';

const OauthUrl = v.pipe(
  v.string(),
  v.description(
    'The single-use sign-in link: `{base_url}/oauth/callback?token=<43 characters>`. Opened in a browser within 5 ' +
      'minutes it starts an 8-hour back-office session (a `303` to `/back-office` with an HttpOnly cookie).',
  ),
  v.examples(['https://main.example/oauth/callback?token=Yq3b9w0Jm2VdXh5sKc8LzR1tNf4uPaE7gHiO6rTyWlQ']),
);

export const OAUTH_ROUTES = {
  'oauth-sign-in': route({
    tag: 'OAuth',
    summary: 'Get a back-office sign-in link',
    description:
      "A sub-account's username and password, with the store's key, buy a single-use link to the back office. 401 " +
      "also answers an unknown username, another main account's username or a wrong password (one answer for all, " +
      '`Wrong username or password`); 403 a right password whose sub-account may not open this store. After 5 failed sign-ins within 15 minutes a username is locked for 15 minutes (a store key after 50): ' +
      '429 with `Retry-After`, even with the right password.',
    api: 'oauth',
    body: {
      schema: ref('SignInRequest', SignInRequest),
      examples: { subAccount: { username: 'alice', password: 'correct horse battery staple' } },
    },
    // The handler's own renderer, with the link where `data.oauthUrl` goes.
    ok: oauthReply.ok('Open oauthUrl in a browser within 5 minutes to sign in; it works once', {
      oauthUrl: DATA as unknown as string,
    }),
    data: OauthUrl,
    errors: ['validation', 'forbidden', 'payload_too_large', 'rate_limited'],
    errorMessages: {
      validation: 'password must not be empty',
      unauthorized: 'Wrong username or password',
      forbidden: 'This sub-account has no access to this store',
      rate_limited: 'Too many failed sign-ins for this username; try again in 900 seconds',
    },
  }),
};
