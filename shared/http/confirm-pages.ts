/**
 * The public sign-up confirmation endpoint's pages (sending host, `/confirm/{token}`). `GET` only shows a page with a
 * button, because mail scanners and link previews fetch every link in a message (a one-click confirmation would let
 * them subscribe an address nobody confirmed); the button's `POST` to the same URL confirms. Every value is escaped.
 */

import type { Clock } from '#shared/domain/clock.ts';
import type { ConfirmClaim } from '#shared/domain/contacts/sign-up-confirmation.ts';
import { isExpired } from '#shared/domain/contacts/sign-up-confirmation.ts';
import type { Store } from '#shared/domain/stores/model.ts';
import type { StoreRepository } from '#shared/domain/stores/ports.ts';
import { escapeHtml } from './back-office-pages.ts';
import type { Reply } from './reply.ts';
import { httpRoute } from './route.ts';
import { page, sender } from './unsubscribe-pages.ts';

export const confirmSignUpPage = (email: string, storeName: string | undefined): Reply =>
  page(
    200,
    'Confirm your subscription',
    `<p>Receive email from ${sender(storeName)} at <strong id="email">${escapeHtml(email)}</strong>?</p>
<form method="post">
<button type="submit">Confirm my subscription</button>
</form>
<p class="muted">If you did not sign up, close this page: nothing will be sent to you.</p>`,
  );

export const confirmedPage = (email: string, storeName: string | undefined): Reply =>
  page(
    200,
    'Subscription confirmed',
    `<p id="done"><strong>${escapeHtml(email)}</strong> is subscribed to email from ${sender(storeName)}.</p>
<p class="muted">Every email has a link to unsubscribe.</p>`,
  );

/** Malformed, altered or foreign tokens: one answer, whatever was wrong, so a token cannot be probed. */
export const invalidConfirmLinkPage = (): Reply =>
  page(
    400,
    'This confirmation link is not valid',
    '<p>The link may be incomplete or altered. Please use the link from the confirmation email itself.</p>',
  );

export const expiredConfirmLinkPage = (): Reply =>
  page(
    410,
    'This confirmation link has expired',
    '<p>Nothing was changed. Please sign up again on the store to get a new confirmation email.</p>',
  );

export interface ConfirmLinkDeps {
  readonly links: { verify(token: string): Promise<ConfirmClaim | undefined> };
  readonly stores: Pick<StoreRepository, 'get'>;
  readonly clock: Clock;
}

/**
 * A public route of `/confirm/{token}`: a malformed, altered or foreign token, or one whose store is gone, gets
 * {@link invalidConfirmLinkPage}, an expired one {@link expiredConfirmLinkPage}; a valid one goes to `handle`.
 */
export const confirmRoute = (
  deps: () => ConfirmLinkDeps,
  handle: (target: { claim: ConfirmClaim; store: Store }) => Promise<Reply>,
) =>
  httpRoute({
    api: 'backOffice',
    auth: 'none',
    handle: async ({ event }) => {
      const { links, stores, clock } = deps();
      const claim = await links.verify(event.pathParameters?.token ?? '');
      const store = claim && (await stores.get(claim.storeId));
      if (!claim || !store) return invalidConfirmLinkPage();
      if (isExpired(claim, clock.now())) return expiredConfirmLinkPage();
      return handle({ claim, store });
    },
  });
