/**
 * Who may open a console page: the back-office session's sub-account, for the stores it may open. Every console route
 * asks this first; a store the account may not open answers exactly like one that does not exist.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { backOfficeAccess } from '#shared/domain/accounts/sign-in.ts';
import { signInDeps } from '#shared/wiring/accounts.ts';
import { htmlPage, notSignedInPage } from './back-office-pages.ts';
import type { Reply } from './reply.ts';
import { sessionIdOf } from './session-cookie.ts';

export type ConsoleStore = { readonly storeId: string; readonly name: string };

/** The store the page is about, or the page to answer instead (401 without a session, 404 for another store). */
export const openConsoleStore = async (
  event: APIGatewayProxyEventV2,
  storeId: string,
): Promise<{ store: ConsoleStore } | { refused: Reply }> => {
  const sessionId = sessionIdOf(event);
  const access = await backOfficeAccess(signInDeps(), sessionId);
  if (!access) return { refused: notSignedInPage(Boolean(sessionId)) };
  const store = access.stores.find((s) => s.storeId === storeId);
  if (!store) return { refused: htmlPage(404, 'Store not found', 'No store with this id is open to your account.') };
  return { store };
};
