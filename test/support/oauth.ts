/**
 * Helpers of the OAuth sign-in tests: a main account with stores and sub-accounts (made with the admin use cases, as
 * `npm run admin -- account …` makes them), `POST /api/v1/oauth` as an integration calls it, and the browser routes
 * called by hand (no redirects followed, cookies passed explicitly).
 */
import { vi } from 'vitest';
import { createMainAccount, createSubAccount } from '#shared/domain/accounts/manage-accounts.ts';
import type { MainAccount } from '#shared/domain/accounts/model.ts';
import { createStore } from '#shared/domain/stores/manage-stores.ts';
import { accountAdminDeps } from '#shared/wiring/accounts.ts';
import { storeAdminDeps } from '#shared/wiring/store-admin.ts';
import type { TestStore } from './local.ts';

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Record<string, unknown>;
}

export interface OwnedStore extends TestStore {
  readonly name: string;
}

export interface Tenant {
  readonly main: MainAccount;
  readonly stores: OwnedStore[];
}

let counter = 0;
/** Unique per call, so tests in one file never share a username (usernames are global). */
export const uniqueName = (stem: string) => `${stem}-${Date.now().toString(36)}-${(counter++).toString(36)}`;

/** A main account owning `storeCount` stores (call after the runtime started: the adapters read its environment). */
export const newTenant = async (name = 'Main Account', storeCount = 1): Promise<Tenant> => {
  const main = await createMainAccount(accountAdminDeps(), { name });
  const stores: OwnedStore[] = [];
  for (let i = 0; i < storeCount; i++) {
    const storeName = `${name} shop ${i + 1}`;
    const { store, apiKey } = await createStore(storeAdminDeps(), {
      name: storeName,
      type: 'direct',
      mainAccountId: main.mainAccountId,
    });
    stores.push({ storeId: store.storeId, apiKey, name: storeName });
  }
  return { main, stores };
};

/** The tenant's first store. */
export const primary = (tenant: Tenant): OwnedStore => {
  const store = tenant.stores[0];
  if (!store) throw new Error('the tenant has no store');
  return store;
};

export const PASSWORD = 'a long test password 1';

/** A sub-account of the tenant's main account with {@link PASSWORD}; `stores` limits its access. */
export const newSubAccount = async (tenant: Tenant, stores?: string[]): Promise<string> => {
  const username = uniqueName('sub');
  await createSubAccount(accountAdminDeps(), {
    mainAccountId: tenant.main.mainAccountId,
    username,
    password: PASSWORD,
    ...(stores ? { stores } : {}),
  });
  return username;
};

/** `POST /api/v1/oauth`; `body` is sent as is when it is a string. */
export const requestLink = async (
  mainUrl: string,
  apiKey: string | undefined,
  body: unknown,
  contentType = 'application/json',
): Promise<Answer> => {
  const headers: Record<string, string> = { 'content-type': contentType };
  if (apiKey !== undefined) headers['x-service-access-token'] = apiKey;
  const response = await fetch(`${mainUrl}/api/v1/oauth`, {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, unknown>,
  };
};

/** A fresh sign-in link for the sub-account through the store (asserts success). */
export const linkFor = async (
  mainUrl: string,
  store: TestStore,
  username: string,
  password = PASSWORD,
): Promise<string> => {
  const answer = await requestLink(mainUrl, store.apiKey, { username, password });
  if (answer.status !== 200) throw new Error(`sign-in refused: ${JSON.stringify(answer.body)}`);
  return (answer.body.data as { oauthUrl: string }).oauthUrl;
};

export interface Page {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

/** A GET or POST as a browser would send it, without following redirects. */
export const open = async (
  url: string,
  options: { cookie?: string; method?: 'GET' | 'POST'; origin?: string } = {},
): Promise<Page> => {
  const headers: Record<string, string> = {};
  if (options.cookie) headers.cookie = options.cookie;
  if (options.origin) headers.origin = options.origin;
  const response = await fetch(url, { method: options.method ?? 'GET', redirect: 'manual', headers });
  return { status: response.status, headers: response.headers, text: await response.text() };
};

/** The sign-in link's Continue button: a POST of the link, from the service's own page (its Origin). */
export const press = (link: string, origin = new URL(link).origin): Promise<Page> =>
  open(link, { method: 'POST', origin });

/** The `name=value` part of the session cookie a response set. */
export const sessionCookieOf = (page: Page): string => {
  const cookie = page.headers.getSetCookie().find((c) => c.startsWith('__Host-storeflow_session='));
  if (!cookie) throw new Error(`no session cookie in ${JSON.stringify(page.headers.getSetCookie())}`);
  return cookie.split(';')[0] ?? '';
};

/**
 * Moves the process's wall clock (the handlers run in this process and date links and sessions with `Date.now()`);
 * time keeps flowing from there. `restoreClock` puts it back.
 */
export const moveClock = (ms: number) => {
  vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
  vi.setSystemTime(Date.now() + ms);
};
export const restoreClock = () => vi.useRealTimers();
