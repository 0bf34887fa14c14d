/**
 * `GET {sending_url}/unsubscribe/{token}` (public: the link in every email): the confirmation page. It unsubscribes
 * nothing, because mail scanners and link previews fetch links; its button sends the one-click `POST`.
 */

import { unsubscribeLinks } from '../../shared/adapters/email/unsubscribe-links.ts';
import { unsubscribeDeps } from '../../shared/adapters/email-events.ts';
import { httpRoute } from '../../shared/http/route.ts';
import { confirmPage, invalidLinkPage } from '../../shared/http/unsubscribe-pages.ts';

const links = unsubscribeLinks();

export const handler = httpRoute({
  api: 'backOffice',
  auth: 'none',
  handle: async ({ event }) => {
    const claim = await links.verify(event.pathParameters?.token ?? '');
    const store = claim && (await unsubscribeDeps().stores.get(claim.storeId));
    if (!claim || !store) return invalidLinkPage();
    return confirmPage(claim.email, store.name);
  },
});
