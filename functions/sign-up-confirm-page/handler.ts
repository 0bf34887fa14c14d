/**
 * `GET {sending_url}/confirm/{token}` (public: the link in a public sign-up's confirmation email): a page whose button
 * confirms. It confirms nothing itself, because mail scanners and link previews fetch links.
 */
import { confirmRoute, confirmSignUpPage } from '#shared/http/confirm-pages.ts';
import { confirmLinkDeps } from '#shared/wiring/email-events.ts';

export const handler = confirmRoute(confirmLinkDeps, async ({ claim, store }) =>
  confirmSignUpPage(claim.email, store.name),
);
