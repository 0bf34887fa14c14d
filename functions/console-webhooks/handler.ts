/**
 * `GET {base_url}/back-office/stores/{storeId}/webhooks`: the console's webhooks page (issue 17): every subscription
 * with its latest deliveries and their attempts, the endpoint's success rate, and the re-send forms.
 */

import { webhooksView } from '#shared/domain/console/webhooks-view.ts';
import { webhooksPage } from '#shared/http/console/webhooks-page.ts';
import { openConsoleStore } from '#shared/http/console-access.ts';
import { httpRoute } from '#shared/http/route.ts';
import { ConsoleStorePath, ConsoleWebhooksQuery } from '#shared/http/route-inputs.ts';
import { webhooksViewDeps } from '#shared/wiring/console.ts';

/** The notice after a re-send (the post's redirect carries what it did). */
const noticeOf = (query: { resent?: string | undefined; more?: string | undefined }) => {
  if (query.resent === undefined) return undefined;
  const n = Number(query.resent);
  const what = n === 1 ? '1 delivery re-sent' : `${Number.isFinite(n) ? n : 0} deliveries re-sent`;
  return query.more === 'true' ? `${what}; more failed since then: re-send again for the rest.` : `${what}.`;
};

export const handler = httpRoute({
  api: 'backOffice',
  auth: 'none',
  path: ConsoleStorePath,
  query: ConsoleWebhooksQuery,
  handle: async ({ event, path, query }) => {
    const opened = await openConsoleStore(event, path.storeId);
    if ('refused' in opened) return opened.refused;
    const views = await webhooksView(webhooksViewDeps(), opened.store.storeId);
    return webhooksPage(opened.store, views, noticeOf(query));
  },
});
