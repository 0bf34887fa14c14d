/**
 * Who may open a console page: the back-office session's sub-account, for the stores it may open. Every console route
 * asks this first; a store the account may not open answers exactly like one that does not exist.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { consoleStoreAccess } from '#shared/domain/accounts/sign-in.ts';
import { signInDeps } from '#shared/wiring/accounts.ts';
import { consoleStanding } from '#shared/wiring/console.ts';
import { htmlPage, notSignedInPage, PAGE_HEADERS } from './back-office-pages.ts';
import { noteStanding } from './console/standing-banner.ts';
import type { Reply } from './reply.ts';
import { isSameOrigin } from './same-origin.ts';
import { sessionIdOf } from './session-cookie.ts';

export type ConsoleStore = { readonly storeId: string; readonly name: string };

/** The store the page is about, or the page to answer instead (401 without a session, 404 for another store). */
export const openConsoleStore = async (
  event: APIGatewayProxyEventV2,
  storeId: string,
): Promise<{ store: ConsoleStore } | { refused: Reply }> => {
  const sessionId = sessionIdOf(event);
  const access = await consoleStoreAccess(signInDeps(), sessionId, storeId);
  if (access === 'signed_out') return { refused: notSignedInPage(Boolean(sessionId)) };
  if (access === 'not_permitted') {
    return { refused: htmlPage(404, 'Store not found', 'No store with this id is open to your account.') };
  }
  noteStanding(event, await consoleStanding()(access.storeId));
  return { store: access };
};

/**
 * A console form's request (GET shows it, POST changes something): a post from another site is refused **403** on its
 * `Origin` before anything is read (besides the session cookie's SameSite=Lax), then the store as `openConsoleStore`.
 * `where` says where to make the change instead.
 */
export const openConsoleForm = async (
  event: APIGatewayProxyEventV2,
  storeId: string,
  where: string,
): Promise<{ store: ConsoleStore; posted: boolean } | { refused: Reply }> => {
  const posted = event.requestContext.http.method === 'POST';
  if (posted && !isSameOrigin(event)) return { refused: htmlPage(403, 'Cross-site request refused', where) };
  const opened = await openConsoleStore(event, storeId);
  return 'refused' in opened ? opened : { store: opened.store, posted };
};

/** After a form's change: `303` to the page that shows it (a reload does not post again). */
export const seeOther = (location: string): Reply => ({
  statusCode: 303,
  headers: { ...PAGE_HEADERS, location },
  body: '',
});
