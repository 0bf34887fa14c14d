/**
 * The console's contact search and timeline in headless Chromium against the local runtime: finding contacts by
 * phone, by name (a prefix, in another case, without its accents) and by email; a page of results and its next page;
 * a contact's timeline with the flow email sent to it and what SES reported (the local SES's delivery, a simulated
 * click); malformed searches answered 400 on the page; and another store's contacts never shown to a sub-account
 * limited to one store, whatever the URL says.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamoContactEmails } from '#shared/adapters/dynamodb/email.repositories.ts';
import { SEARCH_PAGE } from '#shared/domain/contacts/contact-search.ts';
import { simulated } from '#test/integration/email-events/support.ts';
import {
  address,
  awaitMails,
  cartLine,
  ensureSender,
  event,
  eventually,
  type FlowView,
  senderOf,
  settled,
  uid,
} from '#test/integration/flows/engine-support.ts';
import { launchBrowser, seriousViolations, shot, signedInAs, text } from '#test/support/console-browser.ts';
import { newSubAccount, newTenant, type OwnedStore, primary, type Tenant } from '#test/support/oauth.ts';
import { api } from '#test/support/webhooks.ts';

const SLOW_MACHINE = { timeout: 180_000 };

let runtime: LocalRuntime;
let tenant: Tenant;
let store: OwnedStore;
let other: OwnedStore;
let browser: Browser;
let username: string;
/** A word no other test's contact has, so name searches see this file's contacts only. */
const family = `Q${Math.random().toString(36).slice(2, 8)}`;
const adaEmail = address('ada');
const theirsEmail = address('theirs');
const adaPhone = `+44 20 7946 ${Math.floor(1000 + Math.random() * 8999)}`;
const theirsId = uid('their-contact');
const LINK = 'https://shop.example/lamp?utm=mail';

const customer = (owner: OwnedStore, id: string, fields: Record<string, unknown>) =>
  event(runtime, owner, 'customers/create', {
    id,
    created_at: 1_700_000_000,
    email_marketing_consent: { state: 'subscribed' },
    ignore_flow: 'Y',
    ...fields,
  });

beforeAll(async () => {
  runtime = await startLocalRuntime({ logLevel: 'ERROR' });
  tenant = await newTenant('Contacts Group', 2);
  store = primary(tenant);
  other = tenant.stores[1] as OwnedStore;
  username = await newSubAccount(tenant, [store.storeId]);

  await customer(store, uid('ada'), {
    email: adaEmail,
    first_name: 'Ada',
    last_name: `${family}lace`,
    phone: adaPhone,
  });
  await customer(store, uid('adele'), { email: address('adele'), first_name: 'Adèle', last_name: `${family}ont` });
  // A contact without an address (first seen through an update that carries none).
  await event(runtime, store, 'customers/update', {
    id: uid('zoe'),
    first_name: 'Zoë',
    last_name: `Ångström${family}`,
    phone: '+33 1 23 45 67 89',
  });
  // The same phone and names in the other store: never shown to this store's pages.
  await customer(other, theirsId, {
    email: theirsEmail,
    first_name: 'Ada',
    last_name: `${family}lace`,
    phone: adaPhone,
  });
  // More than a page of one family name.
  await Promise.all(
    Array.from({ length: SEARCH_PAGE + 2 }, (_, i) =>
      customer(store, uid('page'), { email: address('reader'), first_name: `Reader ${i}`, last_name: `${family}page` }),
    ),
  );

  // An abandoned cart, emailed by its flow after the hour: the email Ada's timeline shows with its delivery.
  await ensureSender(runtime, store);
  const created = await api(runtime, store.apiKey, 'POST', '/api/v1/flows', {
    preset: 'abandoned_cart',
    from: senderOf(store),
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const flow = (created.body as { data: FlowView }).data;
  expect(flow.id).toBeTruthy();
  const cart = uid('cart');
  await event(runtime, store, 'carts/create', {
    token: cart,
    email: adaEmail,
    checkout_url: `https://shop.example/cart/${cart}`,
    line_items: [cartLine('p-1', 'Desk lamp', '19.90')],
  });
  await settled(runtime);
  await runtime.advanceClock(61 * 60);
  await awaitMails(runtime, adaEmail, 1);
  // The local SES reports the delivery itself; a click is simulated as SES would report it.
  const [sent] = await eventually('the delivery noted on the email', async () => {
    const emails = await dynamoContactEmails().latest(store.storeId, adaEmail, 5);
    return emails[0]?.deliveredAt ? emails : undefined;
  });
  await simulated(runtime, { messageId: sent?.messageId, type: 'click', link: LINK, userAgent: 'Mail/1' });
  await eventually('the click noted on the email', async () => {
    const emails = await dynamoContactEmails().latest(store.storeId, adaEmail, 5);
    return emails[0]?.clickedAt ? true : undefined;
  });
  await settled(runtime);
  browser = await launchBrowser();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await runtime?.stop();
});

const signedIn = (run: (page: Page, context: BrowserContext) => Promise<void>) =>
  signedInAs(browser, runtime, store, username)(run);

const contactsUrl = (storeId: string, query: Record<string, string>) =>
  `${runtime.urls.main}/back-office/stores/${storeId}/contacts?${new URLSearchParams(query)}`;

const search = async (page: Page, query: string) => {
  await page.fill('#q', query);
  await Promise.all([
    page.waitForURL((url) => url.searchParams.get('q') === query),
    page.click('form[role=search] button[type=submit]'),
  ]);
};

const resultNames = async (page: Page) =>
  (await page.locator('#results tbody th').allTextContents()).map((name) => name.trim());

describe('finding contacts in the console', SLOW_MACHINE, () => {
  it('finds a contact by phone number, written any way, straight to its profile', async () => {
    await signedIn(async (page) => {
      await page.goto(`${runtime.urls.main}/back-office/stores/${store.storeId}`);
      await Promise.all([page.waitForURL(/\/contacts$/), page.click('a:has-text("Find a contact")')]);
      await shot(page, 'contacts-search');
      expect(await seriousViolations(page)).toEqual([]);

      // Dashes and parentheses instead of spaces: the same number.
      const [country, area, ...rest] = adaPhone.split(' ');
      await search(page, `${country} (${area}) ${rest.join('-')}`);
      expect(await text(page, '#profile-heading')).toBe(adaEmail);
      const profile = await text(page, 'dl.profile');
      expect(profile).toContain(`Ada ${family}lace`);
      expect(profile).toContain(adaPhone);
      // The other store's contact with the same number is not a second match.
      expect(await page.locator('#results').count()).toBe(0);
      expect(await page.textContent('body')).not.toContain(theirsEmail);
      await shot(page, 'contacts-phone');
    });
  });

  it('lists the contacts whose name starts with a prefix, in another case and without accents, and opens one', async () => {
    await signedIn(async (page) => {
      await page.goto(contactsUrl(store.storeId, {}));
      // Ada's and Adèle's first names start alike, accents aside.
      await search(page, 'AD');
      expect(await resultNames(page)).toEqual([`Ada ${family}lace`, `Adèle ${family}ont`]);
      await shot(page, 'contacts-results');
      expect(await seriousViolations(page)).toEqual([]);

      // Ada, Adèle and the readers share the family's start (a last name): more than a page.
      await search(page, family.toUpperCase());
      const names = await resultNames(page);
      expect(names).toHaveLength(SEARCH_PAGE);
      expect(names.slice(0, 2)).toEqual([`Ada ${family}lace`, `Adèle ${family}ont`]);
      expect(await page.locator('#next-page').count()).toBe(1);
    });
  });

  it('goes to the profile of the one contact a name matches, and pages through many', async () => {
    await signedIn(async (page) => {
      await page.goto(contactsUrl(store.storeId, {}));
      // First name, then the start of the last name, in capitals and without the accents.
      await search(page, `ZOE ANGSTROM${family.slice(0, 3).toUpperCase()}`);
      expect(await text(page, '#profile-heading')).toBe(`Zoë Ångström${family}`);
      expect(await text(page, '#timeline')).toBe('This contact has no email address: the timeline follows an address.');

      await search(page, `${family}PAGE`);
      const first = await resultNames(page);
      expect(first).toHaveLength(SEARCH_PAGE);
      await Promise.all([page.waitForURL(/cursor=/), page.click('#next-page')]);
      const second = await resultNames(page);
      expect(second).toHaveLength(2);
      expect(new Set([...first, ...second]).size).toBe(SEARCH_PAGE + 2);
      expect(await page.locator('#next-page').count()).toBe(0);
      await shot(page, 'contacts-next-page');

      await page.goto(contactsUrl(store.storeId, { name: 'ad' }));
      await Promise.all([page.waitForURL(/id=/), page.click(`#results a:has-text("Adèle ${family}ont")`)]);
      expect(await text(page, 'dl.profile')).toContain(`Adèle ${family}ont`);
    });
  });

  it('shows a contact found by email with the flow email sent to it, its delivery and its click', async () => {
    await signedIn(async (page) => {
      await page.goto(contactsUrl(store.storeId, {}));
      await search(page, adaEmail.toUpperCase());
      expect(await text(page, '#profile-heading')).toBe(adaEmail);
      const email = page.locator('#timeline tr[data-type=email]');
      expect(await email.count()).toBe(1);
      const row = ((await email.textContent()) ?? '').replace(/\s+/g, ' ');
      expect(row).toContain('at step 2');
      expect(await email.locator('q').count()).toBe(1);
      expect(await email.locator('li[data-outcome=delivered]').count()).toBe(1);
      expect(await email.locator('li[data-outcome=clicked]').textContent()).toContain(LINK);
      // The run's steps and the flow's decision are on the same timeline.
      const rows = (await page.locator('#timeline tbody tr').allTextContents()).map((r) => r.replace(/\s+/g, ' '));
      expect(rows.some((r) => r.includes('Run') && r.includes('emailed at step 2'))).toBe(true);
      expect(rows.some((r) => r.includes('Flow decision') && r.includes('entered'))).toBe(true);
      await shot(page, 'contacts-timeline');
      expect(await seriousViolations(page)).toEqual([]);
    });
  });

  it('answers a malformed phone number and a search too long with 400 and the reason on the page', async () => {
    await signedIn(async (page) => {
      const phone = await page.goto(contactsUrl(store.storeId, { phone: '+44 20 CALL ME' }));
      expect(phone?.status()).toBe(400);
      expect(await text(page, '#search-error')).toBe(
        'phone must be a phone number: 4 to 15 digits, with an optional leading +',
      );
      expect(await page.inputValue('#q')).toBe('+44 20 CALL ME');
      await shot(page, 'contacts-bad-phone');
      expect(await seriousViolations(page)).toEqual([]);

      const short = await page.goto(contactsUrl(store.storeId, { q: '+44 1' }));
      expect(short?.status()).toBe(400);
      const long = await page.goto(contactsUrl(store.storeId, { q: 'a'.repeat(300) }));
      expect(long?.status()).toBe(400);
      expect(await text(page, '#search-error')).toBe('q must be at most 254 characters');
      const cursor = await page.goto(contactsUrl(store.storeId, { name: 'ada', cursor: 'not-a-cursor' }));
      expect(cursor?.status()).toBe(400);
      expect(await text(page, '#search-error')).toBe('cursor is not a cursor of this list');
    });
  });

  it("never shows another store's contacts to a sub-account limited to one store, whatever the URL", async () => {
    await signedIn(async (page) => {
      // The other store's own page answers like a missing store, for every kind of search.
      for (const query of [{ q: adaPhone }, { q: 'ada' }, { email: theirsEmail }, { id: theirsId }]) {
        const answer = await page.goto(contactsUrl(other.storeId, query));
        expect(answer?.status()).toBe(404);
        expect(await text(page, 'h1')).toBe('Store not found');
        expect(await page.textContent('body')).not.toContain(theirsEmail);
      }
      // The other store's contact by its id, and by its address, through this store's page.
      const byId = await page.goto(contactsUrl(store.storeId, { id: theirsId }));
      expect(byId?.status()).toBe(404);
      expect(await text(page, '#missing')).toContain(theirsId);
      await shot(page, 'contacts-missing');
      await page.goto(contactsUrl(store.storeId, { email: theirsEmail }));
      expect(await page.textContent('body')).toContain('No contact of this store has this address');
      // Its name and phone match only this store's Ada.
      await page.goto(contactsUrl(store.storeId, { name: `ada ${family}lace` }));
      expect(await text(page, '#profile-heading')).toBe(adaEmail);
      expect(await page.textContent('body')).not.toContain(theirsEmail);
    });
  });
});
