/**
 * `POST {sending_url}/confirm/{token}` (public, the confirmation page's button): the address's owner confirms a public
 * sign-up. Its pending contacts get their email consent subscribed (`customer/marketing`) and their welcome, and
 * their segments are evaluated again (a segment of subscribed contacts they now enter starts its flows); a repeat
 * changes nothing.
 */
import { confirmSignUp } from '#shared/domain/contacts/sign-up-confirmation.ts';
import { refreshContact } from '#shared/domain/segments/membership.ts';
import { confirmedPage, confirmRoute } from '#shared/http/confirm-pages.ts';
import { logger } from '#shared/observability.ts';
import { followUp } from '#shared/queue/follow-up.ts';
import { confirmDeps, confirmLinkDeps } from '#shared/wiring/email-events.ts';
import { forgetBatchSegments, segmentEventDeps } from '#shared/wiring/segments.ts';

export const handler = confirmRoute(confirmLinkDeps, async ({ claim, store }) => {
  const outcome = await confirmSignUp(confirmDeps(), claim, store);
  try {
    for (const customerId of outcome.customerIds) {
      await followUp(
        'Segment step',
        () =>
          refreshContact(segmentEventDeps(), claim.storeId, customerId, {
            id: `confirm#${customerId}`,
            trigger: {},
            fire: true,
          }),
        { storeId: claim.storeId, customerId },
      );
    }
  } finally {
    // The segments read are cached for a worker's batch; a request is its own batch.
    forgetBatchSegments();
  }
  logger.info('Sign-up confirmed', { storeId: claim.storeId, ...outcome });
  return confirmedPage(claim.email, store.name);
});
