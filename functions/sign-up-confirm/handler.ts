/**
 * `POST {sending_url}/confirm/{token}` (public, the confirmation page's button): the address's owner confirms a public
 * sign-up. Its pending contacts get their email consent subscribed (`customer/marketing`) and their welcome; a repeat
 * changes nothing.
 */
import { confirmSignUp } from '#shared/domain/contacts/sign-up-confirmation.ts';
import { confirmedPage, confirmRoute } from '#shared/http/confirm-pages.ts';
import { logger } from '#shared/observability.ts';
import { confirmDeps, confirmLinkDeps } from '#shared/wiring/email-events.ts';

export const handler = confirmRoute(confirmLinkDeps, async ({ claim, store }) => {
  const outcome = await confirmSignUp(confirmDeps(), claim, store);
  logger.info('Sign-up confirmed', { storeId: claim.storeId, ...outcome });
  return confirmedPage(claim.email, store.name);
});
