/** `GET {base_url}/api/v1/senders`: the store's sending domains, `{list, total}` (status as last read). */

import { listSenders } from '#shared/domain/email/senders.ts';
import { webhooksReply } from '#shared/http/responses.ts';
import { httpRoute } from '#shared/http/route.ts';
import { SENDER_ROUTE } from '#shared/http/sender-routes.ts';
import { senderDeps } from '#shared/wiring/sending.ts';

export const handler = httpRoute({
  ...SENDER_ROUTE,
  handle: async ({ store }) => webhooksReply.ok(await listSenders(senderDeps(), store.storeId)),
});
