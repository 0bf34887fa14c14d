/**
 * `GET {base_url}/back-office/stores/{storeId}/webhooks`: the console's webhooks page: every subscription
 * with its latest deliveries and their attempts, the endpoint's success rate, and the re-send forms.
 */

import { webhooksView } from '#shared/domain/console/webhooks-view.ts';
import { resendNotice, webhooksPage } from '#shared/http/console/webhooks-page.ts';
import { openConsoleStore } from '#shared/http/console-access.ts';
import { httpRoute } from '#shared/http/route.ts';
import { ConsoleStorePath, ConsoleWebhooksQuery } from '#shared/http/route-inputs.ts';
import { webhooksViewDeps } from '#shared/wiring/console.ts';

export const handler = httpRoute({
  api: 'backOffice',
  auth: 'none',
  path: ConsoleStorePath,
  query: ConsoleWebhooksQuery,
  handle: async ({ event, path, query }) => {
    const opened = await openConsoleStore(event, path.storeId);
    if ('refused' in opened) return opened.refused;
    const views = await webhooksView(webhooksViewDeps(), opened.store.storeId);
    return webhooksPage(opened.store, views, resendNotice(query));
  },
});
