/**
 * `GET {base_url}/back-office/stores/{storeId}/contacts?q=|email=|phone=|name=|id=[&cursor=]`: the console's contact
 * page: find contacts by email, phone or name (a page of results, or the one match's profile); a contact's
 * profile, suppression and one timeline of events, flow decisions (the explain view), runs and emails with what SES
 * reported. A malformed search answers 400 on the page.
 */

import { contactPageView } from '#shared/domain/console/contact-view.ts';
import { contactPage } from '#shared/http/console/contact-page.ts';
import { openConsoleStore } from '#shared/http/console-access.ts';
import { httpRoute } from '#shared/http/route.ts';
import { ConsoleContactsQuery, ConsoleStorePath } from '#shared/http/route-inputs.ts';
import { contactViewDeps } from '#shared/wiring/console.ts';

export const handler = httpRoute({
  api: 'backOffice',
  auth: 'none',
  path: ConsoleStorePath,
  query: ConsoleContactsQuery,
  handle: async ({ event, path, query }) => {
    const opened = await openConsoleStore(event, path.storeId);
    if ('refused' in opened) return opened.refused;
    const { store } = opened;
    return contactPage(store, query, await contactPageView(contactViewDeps(), store.storeId, query));
  },
});
