/**
 * `POST {sending_url}/unsubscribe/{token}` (public): the RFC 8058 one-click unsubscribe (`List-Unsubscribe=One-Click`),
 * sent by mail clients and by the confirmation page's button. Suppresses the address for the store, sets its contacts'
 * email consent to unsubscribed (`customer/marketing`) and emits `list_unsubscribe`; a repeat changes nothing.
 */

import { unsubscribe } from '#shared/domain/email/unsubscribe.ts';
import { donePage, isOneClickBody, notOneClickPage, unsubscribeRoute } from '#shared/http/unsubscribe-pages.ts';
import { logger } from '#shared/observability.ts';
import { unsubscribeDeps, unsubscribeLinkDeps } from '#shared/wiring/email-events.ts';

export const handler = unsubscribeRoute(unsubscribeLinkDeps, async ({ event, claim, store }) => {
  if (!isOneClickBody(event)) return notOneClickPage();
  const outcome = await unsubscribe(unsubscribeDeps(), { ...claim, reason: 'unsubscribed' }, store);
  logger.info('Unsubscribed', { storeId: claim.storeId, transmissionId: claim.transmissionId, ...outcome });
  return donePage(claim.email, store.name);
});
