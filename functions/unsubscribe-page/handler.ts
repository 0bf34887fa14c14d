/**
 * `GET {sending_url}/unsubscribe/{token}` (public: the link in every email): the confirmation page. It unsubscribes
 * nothing, because mail scanners and link previews fetch links; its button sends the one-click `POST`.
 */
import { confirmPage, unsubscribeRoute } from '#shared/http/unsubscribe-pages.ts';
import { unsubscribeLinkDeps } from '#shared/wiring/email-events.ts';

export const handler = unsubscribeRoute(unsubscribeLinkDeps, async ({ claim, store }) =>
  confirmPage(claim.email, store.name),
);
