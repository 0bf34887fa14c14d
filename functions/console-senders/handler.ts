/**
 * `GET|POST {base_url}/back-office/stores/{storeId}/senders`: the console's sending domains page: each
 * domain with the DNS records to publish and its verification state; the post adds a domain (`action=add`) or reads
 * one's state afresh from SES (`action=check`). Refused cross-site (`Origin`).
 */

import { senderAction, sendersView } from '#shared/domain/console/senders-view.ts';
import { sendersPage } from '#shared/http/console/senders-page.ts';
import { openConsoleForm } from '#shared/http/console-access.ts';
import { httpRoute } from '#shared/http/route.ts';
import { ConsoleStorePath, SenderForm } from '#shared/http/route-inputs.ts';
import { senderDeps } from '#shared/wiring/sending.ts';

export const handler = httpRoute({
  api: 'backOffice',
  auth: 'none',
  path: ConsoleStorePath,
  form: true,
  body: SenderForm,
  handle: async ({ event, path, body }) => {
    const opened = await openConsoleForm(event, path.storeId, 'Use the senders page.');
    if ('refused' in opened) return opened.refused;
    const { store, posted } = opened;
    const { storeId } = store;
    const outcome = posted ? await senderAction(senderDeps(), storeId, body.action ?? 'add', body.domain) : undefined;
    return sendersPage(store, await sendersView(senderDeps(), storeId), outcome);
  },
});
