/**
 * `POST {sending_url}/unsubscribe/{token}` (public): the RFC 8058 one-click unsubscribe (`List-Unsubscribe=One-Click`),
 * sent by mail clients and by the confirmation page's button. Suppresses the address for the store, sets its contacts'
 * email consent to unsubscribed (`customer/marketing`) and emits `list_unsubscribe`; a repeat changes nothing.
 */

import { unsubscribeLinks } from '../../shared/adapters/email/unsubscribe-links.ts';
import { unsubscribeDeps } from '../../shared/adapters/email-events.ts';
import { unsubscribe } from '../../shared/domain/email/unsubscribe.ts';
import { httpRoute } from '../../shared/http/route.ts';
import { donePage, invalidLinkPage, isOneClickBody, notOneClickPage } from '../../shared/http/unsubscribe-pages.ts';
import { logger } from '../../shared/observability.ts';

const links = unsubscribeLinks();

export const handler = httpRoute({
  api: 'backOffice',
  auth: 'none',
  handle: async ({ event }) => {
    const claim = await links.verify(event.pathParameters?.token ?? '');
    const store = claim && (await unsubscribeDeps().stores.get(claim.storeId));
    if (!claim || !store) return invalidLinkPage();
    if (!isOneClickBody(event)) return notOneClickPage();
    const outcome = await unsubscribe(unsubscribeDeps(), { ...claim, reason: 'unsubscribed' });
    logger.info('Unsubscribed', { storeId: claim.storeId, transmissionId: claim.transmissionId, ...outcome });
    return donePage(claim.email, store.name);
  },
});
