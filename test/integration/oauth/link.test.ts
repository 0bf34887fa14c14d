/**
 * The sign-in link and the back-office session over HTTP on the local runtime: the link works once, for 5 minutes,
 * and only exactly as issued; the session cookie's attributes; the back-office page and its refusals (always a page,
 * never a 500); pages are not cached and escape what they show.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import {
  createSubAccount,
  revokeSubAccountSessions,
  setSubAccountPassword,
} from '#shared/domain/accounts/manage-accounts.ts';
import { accountAdminDeps } from '#shared/wiring/accounts.ts';
import {
  linkFor,
  moveClock,
  newSubAccount,
  newTenant,
  open,
  PASSWORD,
  press,
  primary,
  restoreClock,
  sessionCookieOf,
  type Tenant,
  uniqueName,
} from '#test/support/oauth.ts';

/** Each sign-in costs a scrypt hash; the machine may be shared: generous, never a timing assertion. */
const SLOW_MACHINE = { timeout: 120_000 };

let runtime: LocalRuntime;
let tenant: Tenant;

beforeAll(async () => {
  runtime = await startLocalRuntime({ pollers: false });
  tenant = await newTenant('Acme Group', 2);
});

afterAll(async () => {
  await runtime?.stop();
});

afterEach(() => restoreClock());

const backOffice = (cookie?: string) => open(`${runtime.urls.main}/back-office`, cookie ? { cookie } : {});

/** Signs in with a fresh link and answers the session cookie (`name=value`). */
const signIn = async (username: string) => {
  const opened = await press(await linkFor(runtime.urls.main, primary(tenant), username));
  expect(opened.status).toBe(303);
  return sessionCookieOf(opened);
};

/** A token with one character changed (still 43 base64url characters). */
const altered = (url: string) => {
  const u = new URL(url);
  const token = u.searchParams.get('token') ?? '';
  u.searchParams.set('token', `${token.slice(0, 20)}${token[20] === 'A' ? 'B' : 'A'}${token.slice(21)}`);
  return u.toString();
};

const expectPage = (page: { headers: Headers }) => {
  expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(page.headers.get('cache-control')).toBe('no-store');
};

describe('the sign-in link /oauth/callback', SLOW_MACHINE, () => {
  it('shows a Continue button to a GET (a link scanner), using nothing; the POST of it signs in', async () => {
    const username = await newSubAccount(tenant);
    const url = await linkFor(runtime.urls.main, primary(tenant), username);
    for (const scan of [await open(url), await open(url)]) {
      expect(scan.status).toBe(200);
      expectPage(scan);
      expect(scan.headers.getSetCookie()).toEqual([]);
      expect(scan.text).toContain(
        `<form method="post" action="/oauth/callback?token=${new URL(url).searchParams.get('token')}">`,
      );
    }
    expect((await press(url)).status).toBe(303);
  });

  it('refuses a POST of the link from another site (403), without using it up', async () => {
    const username = await newSubAccount(tenant);
    const url = await linkFor(runtime.urls.main, primary(tenant), username);
    const forged = await press(url, 'https://evil.example');
    expect(forged.status).toBe(403);
    expect(forged.headers.getSetCookie()).toEqual([]);
    expect((await press(url)).status).toBe(303);
  });

  it('signs in once: 303 to /back-office with a __Host-, Secure, HttpOnly, SameSite=Lax session cookie', async () => {
    const username = await newSubAccount(tenant);
    const url = await linkFor(runtime.urls.main, primary(tenant), username);
    const first = await press(url);
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toBe('/back-office');
    expect(first.headers.get('cache-control')).toBe('no-store');
    expect(first.headers.get('referrer-policy')).toBe('same-origin');
    const [cookie] = first.headers.getSetCookie();
    expect(cookie).toMatch(/^__Host-storeflow_session=[A-Za-z0-9_-]{43}; /);
    const attributes = (cookie ?? '').split('; ').slice(1);
    expect(attributes).toEqual(
      expect.arrayContaining(['HttpOnly', 'Secure', 'SameSite=Lax', 'Path=/', 'Max-Age=28800']),
    );

    const page = await backOffice(sessionCookieOf(first));
    expect(page.status).toBe(200);
    expect(page.text).toContain(username);

    const second = await press(url);
    expect(second.status).toBe(410);
    expectPage(second);
    expect(second.text).toContain('This sign-in link was already used');
    expect(second.headers.getSetCookie()).toEqual([]);
  });

  it('lets exactly one of three simultaneous openings of the same link in', async () => {
    const username = await newSubAccount(tenant);
    const url = await linkFor(runtime.urls.main, primary(tenant), username);
    const statuses = (await Promise.all([press(url), press(url), press(url)])).map((p) => p.status).sort();
    expect(statuses).toEqual([303, 410, 410]);
  });

  it('refuses a link opened after 5 minutes with 410, and does not use it up before that', async () => {
    const username = await newSubAccount(tenant);
    const stale = await linkFor(runtime.urls.main, primary(tenant), username);
    const fresh = await linkFor(runtime.urls.main, primary(tenant), username);
    moveClock(4 * 60_000 + 50_000);
    expect((await press(fresh)).status).toBe(303);
    moveClock(20_000);
    const page = await press(stale);
    expect(page.status).toBe(410);
    expectPage(page);
    expect(page.text).toContain('This sign-in link has expired');
  });

  it.each([
    ['a token with one character changed', (url: string) => altered(url)],
    ['a token cut short', (url: string) => url.slice(0, -1)],
    ['no token', (url: string) => url.split('?')[0] ?? url],
    ['a token with markup in it', (url: string) => `${url.split('?')[0]}?token=%3Cscript%3Ealert(1)%3C%2Fscript%3E`],
  ])('answers 400 with a page, never a 500, for %s', async (_, change) => {
    const username = await newSubAccount(tenant);
    const url = await linkFor(runtime.urls.main, primary(tenant), username);
    const page = await press(change(url));
    expect(page.status).toBe(400);
    expectPage(page);
    expect(page.text).toContain('This sign-in link is not valid');
    expect(page.text).not.toContain('<script>alert');
    // The altered link did not use up the real one.
    expect((await press(url)).status).toBe(303);
  });
});

describe('GET /back-office', SLOW_MACHINE, () => {
  it('shows the username, the main account and every store of the main account for a sub-account with all stores', async () => {
    const username = await newSubAccount(tenant);
    const page = await backOffice(await signIn(username));
    expect(page.status).toBe(200);
    expectPage(page);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.text).toContain(`<dd id="username">${username}</dd>`);
    expect(page.text).toContain(tenant.main.name);
    expect(page.text).toContain(tenant.main.mainAccountId);
    for (const store of tenant.stores) {
      expect(page.text).toContain(store.name);
      expect(page.text).toContain(store.storeId);
    }
  });

  it('shows only the stores a limited sub-account may open', async () => {
    const [first, second] = tenant.stores;
    const username = await newSubAccount(tenant, [first?.storeId ?? '']);
    const page = await backOffice(await signIn(username));
    expect(page.text).toContain(first?.storeId);
    expect(page.text).not.toContain(second?.storeId);
  });

  it('escapes every value it shows', async () => {
    const hostile = await newTenant('<script>alert("x")</script> & Co', 1);
    const username = uniqueName('esc');
    await createSubAccount(accountAdminDeps(), {
      mainAccountId: hostile.main.mainAccountId,
      username,
      password: PASSWORD,
    });
    const opened = await press(await linkFor(runtime.urls.main, primary(hostile), username));
    const page = await backOffice(sessionCookieOf(opened));
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('<script>');
    expect(page.text).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; Co');
  });

  it.each([
    ['no cookie', undefined],
    ['an unknown session id', `__Host-storeflow_session=${'A'.repeat(43)}`],
    ['a malformed cookie', '__Host-storeflow_session=<b>'],
  ])('answers 401 with a page for %s', async (_, cookie) => {
    const page = await backOffice(cookie);
    expect(page.status).toBe(401);
    expectPage(page);
    expect(page.text).toContain('You are not signed in');
  });

  it('ends the session after 8 hours', async () => {
    const cookie = await signIn(await newSubAccount(tenant));
    moveClock(7 * 3_600_000 + 59 * 60_000);
    expect((await backOffice(cookie)).status).toBe(200);
    moveClock(2 * 60_000);
    const page = await backOffice(cookie);
    expect(page.status).toBe(401);
    // The browser is told to drop the dead cookie.
    expect(page.headers.getSetCookie()[0]).toMatch(/^__Host-storeflow_session=; .*Max-Age=0/);
  });

  it('signs out: POST /back-office/sign-out ends the session and clears the cookie', async () => {
    const cookie = await signIn(await newSubAccount(tenant));
    const out = await open(`${runtime.urls.main}/back-office/sign-out`, { cookie, method: 'POST' });
    expect(out.status).toBe(200);
    expect(out.text).toContain('You are signed out');
    expect(out.headers.getSetCookie()[0]).toMatch(/^__Host-storeflow_session=; .*Max-Age=0/);
    expect((await backOffice(cookie)).status).toBe(401);
  });

  it('refuses a cross-site sign-out (403) and keeps the session', async () => {
    const cookie = await signIn(await newSubAccount(tenant));
    const forged = await open(`${runtime.urls.main}/back-office/sign-out`, {
      cookie,
      method: 'POST',
      origin: 'https://evil.example',
    });
    expect(forged.status).toBe(403);
    expect(forged.headers.getSetCookie()).toEqual([]);
    expect((await backOffice(cookie)).status).toBe(200);
  });

  it('ends every session and unused link of the account when its password changes, or on revoke-sessions', async () => {
    const username = await newSubAccount(tenant);
    const cookie = await signIn(username);
    const unused = await linkFor(runtime.urls.main, primary(tenant), username);
    expect((await backOffice(cookie)).status).toBe(200);

    await setSubAccountPassword(accountAdminDeps(), { username, password: 'another long password 2' });
    expect((await backOffice(cookie)).status).toBe(401);
    expect((await press(unused)).status).toBe(410);

    // A session made after the change works, until an operator revokes the account's sessions.
    const fresh = await press(await linkFor(runtime.urls.main, primary(tenant), username, 'another long password 2'));
    const freshCookie = sessionCookieOf(fresh);
    expect((await backOffice(freshCookie)).status).toBe(200);
    moveClock(1);
    await revokeSubAccountSessions(accountAdminDeps(), { username });
    expect((await backOffice(freshCookie)).status).toBe(401);
  });
});
