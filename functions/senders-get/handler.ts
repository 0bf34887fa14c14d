/** `GET {base_url}/api/v1/senders/{domain}`: one sending domain, its status read afresh from SES. */

import { getSender } from '#shared/domain/email/senders.ts';
import { webhooksReply } from '#shared/http/responses.ts';
import { httpRoute } from '#shared/http/route.ts';
import { SenderPath } from '#shared/http/route-inputs.ts';
import { SENDER_ROUTE } from '#shared/http/sender-routes.ts';
import { senderDeps } from '#shared/wiring/sending.ts';

export const handler = httpRoute({
  path: SenderPath,
  ...SENDER_ROUTE,
  handle: async ({ store, path }) => webhooksReply.ok(await getSender(senderDeps(), store.storeId, path.domain)),
});
