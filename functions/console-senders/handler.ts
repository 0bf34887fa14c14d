/**
 * `GET|POST {base_url}/back-office/stores/{storeId}/senders`: the console's sending domains page (issue 17): each
 * domain with the DNS records to publish and its verification state; the post adds a domain (`action=add`) or reads
 * one's state afresh from SES (`action=check`). Refused cross-site (`Origin`).
 */

import { senderAction, sendersView } from '#shared/domain/console/senders-view.ts';
import { htmlPage } from '#shared/http/back-office-pages.ts';
import { sendersPage } from '#shared/http/console/senders-page.ts';
import { openConsoleStore } from '#shared/http/console-access.ts';
import { httpRoute } from '#shared/http/route.ts';
import { ConsoleStorePath, SenderForm } from '#shared/http/route-inputs.ts';
import { isSameOrigin } from '#shared/http/same-origin.ts';
import { senderDeps } from '#shared/wiring/sending.ts';

export const handler = httpRoute({
  api: 'backOffice',
  auth: 'none',
  path: ConsoleStorePath,
  form: true,
  body: SenderForm,
  handle: async ({ event, path, body }) => {
    const posted = event.requestContext.http.method === 'POST';
    if (posted && !isSameOrigin(event)) return htmlPage(403, 'Cross-site request refused', 'Use the senders page.');
    const opened = await openConsoleStore(event, path.storeId);
    if ('refused' in opened) return opened.refused;
    const { storeId } = opened.store;
    const outcome = posted ? await senderAction(senderDeps(), storeId, body.action ?? 'add', body.domain) : undefined;
    return sendersPage(opened.store, await sendersView(senderDeps(), storeId), outcome);
  },
});
