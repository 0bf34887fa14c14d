/**
 * The sign-in link in a real browser: headless Chromium (Debian's `chromium` package, installed by `npm test`'s pretest step when
 * missing) driven by playwright-core, against the local runtime on http://127.0.0.1. Chromium treats 127.0.0.1 as a
 * secure context, so the `Secure` session cookie is kept there as it is on the deployed HTTPS host.
 */
import { existsSync } from 'node:fs';
import { type Browser, type BrowserContext, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { linkFor, newSubAccount, newTenant, primary, type Tenant } from '#test/support/oauth.ts';

const CHROMIUM = '/usr/bin/chromium';

/** Each sign-in costs a scrypt hash; the machine may be shared: generous, never a timing assertion. */
const SLOW_MACHINE = { timeout: 120_000 };

let runtime: LocalRuntime;
let tenant: Tenant;
let browser: Browser;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `No Chromium at ${CHROMIUM}: install Debian's package (apt-get install chromium), as scripts/ensure-browser.mjs does before npm test`,
    );
  }
  runtime = await startLocalRuntime({ pollers: false });
  tenant = await newTenant('Browser Group', 2);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
});

afterAll(async () => {
  await browser?.close();
  await runtime?.stop();
});

const withContext = async (run: (context: BrowserContext) => Promise<void>) => {
  const context = await browser.newContext();
  try {
    await run(context);
  } finally {
    await context.close();
  }
};

describe('the sign-in link in headless Chromium', SLOW_MACHINE, () => {
  it('lands on the back office showing the user and the store, keeps the cookie from scripts, and works only once', async () => {
    const limited = primary(tenant);
    const username = await newSubAccount(tenant, [limited.storeId]);
    const url = await linkFor(runtime.urls.main, limited, username);

    await withContext(async (context) => {
      const page = await context.newPage();
      // The link shows a Continue button (what a link scanner would see); the click signs in.
      const landing = await page.goto(url);
      expect(landing?.status()).toBe(200);
      expect(await page.textContent('h1')).toBe('Sign in to the back office');
      expect(await context.cookies()).toEqual([]);
      await Promise.all([page.waitForURL(/\/back-office$/), page.click('button[type=submit]')]);
      expect(new URL(page.url()).pathname).toBe('/back-office');
      expect(await page.textContent('#username')).toBe(username);
      expect(await page.textContent('#main-account')).toContain(tenant.main.name);
      const stores = await page.textContent('#stores');
      expect(stores).toContain(limited.name);
      expect(stores).toContain(limited.storeId);
      expect(stores).not.toContain(tenant.stores[1]?.storeId);

      // The browser holds the session cookie with its attributes, and no script can read it.
      const [cookie] = (await context.cookies()).filter((c) => c.name === '__Host-storeflow_session');
      expect(cookie).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Lax', path: '/' });
      // A cookie without HttpOnly shows there, so an empty answer is not a blind spot of document.cookie.
      await context.addCookies([{ name: 'probe', value: 'visible', url: runtime.urls.main }]);
      // (Evaluated in the page: the test's own TypeScript has no DOM types, hence the cast.)
      const visible = await page.evaluate(
        () => (globalThis as unknown as { document: { cookie: string } }).document.cookie,
      );
      expect(visible).toContain('probe=visible');
      expect(visible).not.toContain('storeflow_session');

      // A reload stays signed in (the cookie is sent back).
      await page.reload();
      expect(await page.textContent('#username')).toBe(username);

      // The same link again: the refusal page once Continue is pressed, even in the signed-in browser.
      await page.goto(url);
      const [again] = await Promise.all([page.waitForResponse(/\/oauth\/callback/), page.click('button[type=submit]')]);
      expect(again.status()).toBe(410);
      expect(await page.textContent('h1')).toBe('This sign-in link was already used');
    });

    // And in another browser, which has no session either.
    await withContext(async (context) => {
      const page = await context.newPage();
      await page.goto(url);
      const [again] = await Promise.all([page.waitForResponse(/\/oauth\/callback/), page.click('button[type=submit]')]);
      expect(again.status()).toBe(410);
      expect(await page.textContent('h1')).toBe('This sign-in link was already used');
      expect(await context.cookies()).toEqual([]);
      const office = await page.goto(`${runtime.urls.main}/back-office`);
      expect(office?.status()).toBe(401);
      expect(await page.textContent('h1')).toBe('You are not signed in');
    });
  });

  it('signs out with the button and is then refused the back office', async () => {
    const username = await newSubAccount(tenant);
    const url = await linkFor(runtime.urls.main, primary(tenant), username);
    await withContext(async (context) => {
      const page = await context.newPage();
      await page.goto(url);
      await Promise.all([page.waitForURL(/\/back-office$/), page.click('button[type=submit]')]);
      expect(await page.textContent('#username')).toBe(username);
      await page.click('button[type=submit]');
      await page.waitForURL(/\/back-office\/sign-out$/);
      expect(await page.textContent('h1')).toBe('You are signed out');
      expect((await context.cookies()).filter((c) => c.name === '__Host-storeflow_session')).toEqual([]);
      const office = await page.goto(`${runtime.urls.main}/back-office`);
      expect(office?.status()).toBe(401);
    });
  });
});
