/** `POST {base_url}/api/v1/senders` `{domain}`: register a sending domain; answers the DKIM records to publish. */

import { registerSender, SenderRequest } from '#shared/domain/email/senders.ts';
import { webhooksReply } from '#shared/http/responses.ts';
import { httpRoute } from '#shared/http/route.ts';
import { SENDER_ROUTE } from '#shared/http/sender-routes.ts';
import { senderDeps } from '#shared/wiring/sending.ts';

export const handler = httpRoute({
  ...SENDER_ROUTE,
  body: SenderRequest,
  handle: async ({ store, body }) => webhooksReply.ok(await registerSender(senderDeps(), store.storeId, body)),
});
