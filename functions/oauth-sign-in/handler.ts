/** `POST {base_url}/api/v1/oauth`: a sub-account's username and password, with the store key, buy a sign-in link. */

import { config } from '#shared/config.ts';
import { parseSignInRequest, requestSignInLink, signInUrl } from '#shared/domain/accounts/sign-in.ts';
import { oauthReply } from '#shared/http/responses.ts';
import { httpRoute } from '#shared/http/route.ts';
import { LIMITS } from '#shared/limits.ts';
import { signInDeps } from '#shared/wiring/accounts.ts';

export const handler = httpRoute({
  api: 'oauth',
  rateLimit: { bucket: 'oauth', perSecond: LIMITS.oauthPerSecond },
  body: parseSignInRequest,
  handle: async ({ store, body, event }) => {
    const { token } = await requestSignInLink(signInDeps(), { storeId: store.storeId, ...body });
    // Without a configured public URL, the API's own domain (API Gateway sets it; it is not the client's Host).
    const base = config().publicMainUrl || `https://${event.requestContext.domainName}`;
    return oauthReply.ok('Open oauthUrl in a browser within 5 minutes to sign in; it works once', {
      oauthUrl: signInUrl(base, token),
    });
  },
});
