import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamoAttribution } from '#shared/adapters/dynamodb/attribution.ts';
import { dynamoDeliveryRepository } from '#shared/adapters/dynamodb/webhook.repositories.ts';
import { countsReader } from '#shared/domain/attribution/read-counts.ts';
import { readActivity } from '#shared/domain/console/activity.ts';
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
  subscribedCustomer,
  uid,
} from '#test/integration/flows/engine-support.ts';
import * as imports from '#test/integration/imports/support.ts';
import { launchBrowser, seriousViolations, shot, signedInAs, text } from '#test/support/console-browser.ts';
import { newSubAccount, newTenant, type OwnedStore, primary, type Tenant } from '#test/support/oauth.ts';
import * as sending from '#test/support/sending.ts';
import { api, type Receiver, startReceiver, subscribe } from '#test/support/webhooks.ts';

const SLOW_MACHINE = { timeout: 180_000 };
/** A flow name a careless page would turn into markup. */
const MARKUP_NAME = 'Cart <b id="injected">rescue</b>';

let runtime: LocalRuntime;
let tenant: Tenant;
let store: OwnedStore;
let browser: Browser;
let flow: FlowView;
/** A flow of the tenant's other store, which the sub-account may not open. */
let otherFlow: FlowView;
let username: string;
let receiver: Receiver;
let marketingHook: string;
const email = address('console-buyer');
const cart = uid('cart');

beforeAll(async () => {
  runtime = await startLocalRuntime({ logLevel: 'ERROR' });
  tenant = await newTenant('Console Group', 2);
  store = primary(tenant);
  username = await newSubAccount(tenant, [store.storeId]);

  // A webhook whose endpoint fails once, then takes the retry: two attempts, one delivered.
  receiver = await startReceiver();
  receiver.script('/marketing', [500], 200);
  marketingHook = (await subscribe(runtime, store, 'customer/marketing', receiver.url('/marketing'))).id;

  // An abandoned cart, emailed by its flow after the hour, then paid with the cart's token: one recovered order.
  await subscribedCustomer(runtime, store, uid('cust'), email);
  await ensureSender(runtime, store);
  const created = await api(runtime, store.apiKey, 'POST', '/api/v1/flows', {
    preset: 'abandoned_cart',
    name: MARKUP_NAME,
    from: senderOf(store),
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  flow = (created.body as { data: FlowView }).data;
  await event(runtime, store, 'carts/create', {
    token: cart,
    email,
    checkout_url: `https://shop.example/cart/${cart}`,
    line_items: [cartLine('p-1', 'Desk lamp', '19.90')],
  });
  await settled(runtime);
  await runtime.advanceClock(61 * 60);
  await awaitMails(runtime, email, 1);
  await event(runtime, store, 'orders/paid', {
    id: uid('order'),
    name: '#1001',
    customer_id: uid('cust'),
    email,
    order_status: 'paid',
    total_price: '39.80',
    currency: 'EUR',
    cart_token: cart,
    line_items: [{ id: 'l1', product_id: 'p-1', title: 'Desk lamp', quantity: 2, price: '19.90' }],
  });
  await settled(runtime);
  // The counts the page must show, as the API reads them (flow counters are written at the end of their batch).
  await eventually('the recovered order counted', async () => {
    const answer = await api(runtime, store.apiKey, 'GET', `/api/v1/flows/${flow.id}/stats`);
    const data = (answer.body as { data: { emailed: number; recovered: { orders: number } } }).data;
    return data.emailed === 1 && data.recovered.orders === 1 ? true : undefined;
  });

  const other = tenant.stores[1] as OwnedStore;
  await ensureSender(runtime, other);
  const made = await api(runtime, other.apiKey, 'POST', '/api/v1/flows', {
    preset: 'order_paid',
    from: senderOf(other),
  });
  expect(made.status, JSON.stringify(made.body)).toBe(200);
  otherFlow = (made.body as { data: FlowView }).data;

  await receiver.waitFor('/marketing', 2, 30_000);
  // The second attempt is counted when its worker batch ends.
  const today = new Date().toISOString().slice(0, 10);
  await eventually('both webhook attempts counted', async () => {
    const { webhooks } = await readActivity(countsReader(dynamoAttribution(), store.storeId), {
      from: today,
      to: today,
    });
    return webhooks.attempts === 2 ? true : undefined;
  });
  browser = await launchBrowser();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await runtime?.stop();
});

const signedIn = (run: (page: Page, context: BrowserContext) => Promise<void>) =>
  signedInAs(browser, runtime, store, username)(run);

describe('the console store overview in headless Chromium', SLOW_MACHINE, () => {
  it('opens from the back office and shows the email and the recovered order with its amount, per store and flow (flows page)', async () => {
    await signedIn(async (page) => {
      await Promise.all([page.waitForURL(/\/back-office\/stores\//), page.click(`a[href$="${store.storeId}"]`)]);
      expect(await text(page, 'h1')).toBe(store.name);
      expect(await text(page, '#emails-flow td:nth-of-type(1)')).toBe('1');
      expect(await text(page, '#orders [data-key=recovered-orders] dd')).toBe('1');
      expect(await text(page, '#orders [data-key=recovered-revenue] dd')).toBe('EUR 39.80');
      expect(await text(page, '#orders [data-key=influenced-orders] dd')).toBe('0');

      // The events the worker applied, by endpoint, and the webhook's two attempts (counted at their batch's end).
      const rows = page.locator('#events tbody tr');
      const events: Record<string, string> = {};
      for (let i = 0; i < (await rows.count()); i++) {
        const row = rows.nth(i);
        events[((await row.locator('th').textContent()) ?? '').trim()] = (
          (await row.locator('td').textContent()) ?? ''
        ).trim();
      }
      expect(events).toMatchObject({ 'customers/create': '1', 'carts/create': '1', 'orders/paid': '1' });
      expect(await text(page, '#event-totals [data-key=failed] dd')).toBe('0');
      expect(await text(page, '#webhooks [data-key=attempts] dd')).toBe('2');
      expect(await text(page, '#webhooks [data-key=delivered] dd')).toBe('1');
      expect(await text(page, '#webhooks [data-key=retried] dd')).toBe('1');
      expect(await text(page, '#webhooks [data-key=success-rate] dd')).toBe('50.0 %');
      await shot(page, 'overview');
      expect(await seriousViolations(page)).toEqual([]);

      // Each flow's funnel is on the flows page, for the same days.
      await Promise.all([page.waitForURL(/\/flows\?from=/), page.click('#flows a')]);
      expect(await text(page, 'h1')).toBe('Flows');
      const row = page.locator('#flows tbody tr', { hasText: 'rescue' });
      const cells = (await row.locator('td').allTextContents()).map((cell) => cell.trim());
      // State, entered, emailed, delivered, opened, clicked, recovered orders, revenue, influenced orders.
      expect(cells[0]).toBe('Enabled');
      expect(cells.slice(1, 3)).toEqual(['1', '1']);
      expect(cells.slice(6, 8)).toEqual(['1', 'EUR 39.80']);
      // The name is text, not markup.
      expect(await row.locator('th').textContent()).toContain(MARKUP_NAME);
      expect(await page.locator('#injected').count()).toBe(0);

      await shot(page, 'flows');
      expect(await seriousViolations(page)).toEqual([]);
    });
  });

  it('shows the range chosen in its form, from the days kept', async () => {
    await signedIn(async (page) => {
      await page.goto(`${runtime.urls.main}/back-office/stores/${store.storeId}`);
      await page.fill('#from', '2020-01-01');
      await page.fill('#to', '2020-01-31');
      await Promise.all([page.waitForURL(/from=2020-01-01/), page.click('form.range button[type=submit]')]);
      expect(await page.inputValue('#from')).toBe('2020-01-01');
      expect(await text(page, '#emails-total td:nth-of-type(1)')).toBe('0');
      expect(await text(page, '#orders [data-key=recovered-revenue] dd')).toBe('—');

      const bad = await page.goto(`${runtime.urls.main}/back-office/stores/${store.storeId}?from=2020-13-01`);
      expect(bad?.status()).toBe(400);
      expect(await page.textContent('body')).toContain('from must be a date as YYYY-MM-DD');
    });
  });

  it('answers another store of the same main account like a missing one, and no session with 401', async () => {
    const other = tenant.stores[1] as OwnedStore;
    await signedIn(async (page) => {
      for (const path of [other.storeId, 'st_00000000000000000000', `${other.storeId}/flows`]) {
        const answer = await page.goto(`${runtime.urls.main}/back-office/stores/${path}`);
        expect(answer?.status()).toBe(404);
        expect(await text(page, 'h1')).toBe('Store not found');
        expect(await page.textContent('body')).not.toContain(other.name);
      }
    });
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const answer = await page.goto(`${runtime.urls.main}/back-office/stores/${store.storeId}`);
      expect(answer?.status()).toBe(401);
      expect(answer?.headers()['content-security-policy']).toContain("default-src 'none'");
    } finally {
      await context.close();
    }
  });
});

const flowEnabled = async (owner: OwnedStore, id: string) => {
  const answer = await api(runtime, owner.apiKey, 'GET', `/api/v1/flows/${id}`);
  return (answer.body as { data: { enabled: boolean } }).data.enabled;
};

describe('the console flow page in headless Chromium', SLOW_MACHINE, () => {
  it('shows the funnel per step, the latest run and the emails previewed for its contact and cart', async () => {
    await signedIn(async (page) => {
      await page.goto(`${runtime.urls.main}/back-office/stores/${store.storeId}/flows`);
      await Promise.all([page.waitForURL(/\/flows\//), page.click('#flows tbody a')]);
      expect(await text(page, 'h1')).toBe(MARKUP_NAME);
      expect(await text(page, '#flow-facts [data-key=state] dd')).toBe('Enabled');
      expect(await text(page, '#flow-facts [data-key=entered] dd')).toBe('1');

      const reminder = page.locator('#steps tr[data-step=cart-reminder] td');
      const cells = (await reminder.allTextContents()).map((cell) => cell.trim());
      // What it does, emailed, delivered, opened, clicked, recovered orders, recovered revenue.
      expect(cells[0]).toContain('left something in your cart');
      expect(cells[1]).toBe('1');
      expect(cells.slice(5, 7)).toEqual(['1', 'EUR 39.80']);
      expect(await text(page, '#steps tr[data-step=wait-1-day] td')).toMatch(/^Wait 1 d\b/);
      expect(await page.getAttribute('#steps tr[data-step=wait-1-day] a', 'href')).toMatch(
        /\/settings#step-wait-1-day$/,
      );

      const runs = await text(page, '#runs tbody');
      expect(runs).toContain(email);
      expect(runs).toContain('Entered');

      // The latest run's contact (Ada) and cart (the desk lamp), at both widths, in frames that run no script.
      const preview = page.locator('section.email[data-step=cart-reminder]');
      expect(await preview.locator('.subject').textContent()).toContain('Ada, you left something in your cart');
      const frames = preview.locator('iframe');
      expect(await frames.count()).toBe(2);
      expect(await frames.first().getAttribute('sandbox')).toBe('');
      expect(
        await page.frameLocator('section.email[data-step=cart-reminder] iframe >> nth=1').locator('body').textContent(),
      ).toContain('Desk lamp');
      await shot(page, 'flow');
      expect(await page.locator('#injected').count()).toBe(0);
      expect(await seriousViolations(page)).toEqual([]);
    });
  });

  it('disables and enables the flow with its button', async () => {
    await signedIn(async (page) => {
      await page.goto(`${runtime.urls.main}/back-office/stores/${store.storeId}/flows/${flow.id}`);
      await Promise.all([page.waitForLoadState('load'), page.click('button:has-text("Disable this flow")')]);
      expect(await text(page, '#flow-facts [data-key=state] dd')).toBe('Disabled');
      expect(await flowEnabled(store, flow.id)).toBe(false);
      await Promise.all([page.waitForLoadState('load'), page.click('button:has-text("Enable this flow")')]);
      expect(await text(page, '#flow-facts [data-key=state] dd')).toBe('Enabled');
      expect(await flowEnabled(store, flow.id)).toBe(true);
    });
  });

  it('refuses a cross-site switch, and answers another store’s flow 404 without changing it', async () => {
    const other = tenant.stores[1] as OwnedStore;
    await signedIn(async (page, context) => {
      const own = `${runtime.urls.main}/back-office/stores/${store.storeId}/flows/${flow.id}`;
      const forged = await context.request.post(`${own}/state?enabled=false`, {
        headers: { origin: 'https://evil.example' },
        maxRedirects: 0,
      });
      expect(forged.status()).toBe(403);
      expect(await flowEnabled(store, flow.id)).toBe(true);

      for (const path of [
        `/back-office/stores/${store.storeId}/flows/${otherFlow.id}`,
        `/back-office/stores/${other.storeId}/flows/${otherFlow.id}`,
      ]) {
        expect((await page.goto(`${runtime.urls.main}${path}`))?.status(), path).toBe(404);
        const post = await context.request.post(`${runtime.urls.main}${path}/state?enabled=false`, { maxRedirects: 0 });
        expect(post.status(), path).toBe(404);
      }
      expect(await flowEnabled(other, otherFlow.id)).toBe(true);
    });
  });
});

describe('the console contact page in headless Chromium', SLOW_MACHINE, () => {
  it('finds the contact by email and shows its profile and one timeline of events, flow decisions and runs', async () => {
    await signedIn(async (page) => {
      await page.goto(`${runtime.urls.main}/back-office/stores/${store.storeId}`);
      await Promise.all([page.waitForURL(/\/contacts$/), page.click('a:has-text("Find a contact")')]);
      await page.fill('#q', email.toUpperCase());
      await Promise.all([page.waitForURL(/q=/), page.click('form[role=search] button[type=submit]')]);
      expect(await text(page, '#profile-heading')).toBe(email);
      const profile = await text(page, 'dl.profile');
      expect(profile).toContain('Ada');
      expect(profile).toContain('subscribed');
      expect(await text(page, '#suppression')).toBe('Not suppressed.');

      const rows = (await page.locator('#timeline tbody tr').allTextContents()).map((row) => row.replace(/\s+/g, ' '));
      expect(rows.some((row) => row.includes('Flow decision') && row.includes(`${MARKUP_NAME}: entered`))).toBe(true);
      expect(rows.some((row) => row.includes('Run') && row.includes('emailed at step 2'))).toBe(true);
      expect(rows.some((row) => row.includes('Event') && row.includes('abandoned_cart'))).toBe(true);
      await shot(page, 'contact');
      expect(await page.locator('#injected').count()).toBe(0);
      expect(await seriousViolations(page)).toEqual([]);
    });
  });

  it('shows nothing of another store’s contact, and answers a malformed address 400', async () => {
    const other = tenant.stores[1] as OwnedStore;
    const theirs = address('their-buyer');
    await subscribedCustomer(runtime, other, uid('cust'), theirs);
    await settled(runtime);
    await signedIn(async (page) => {
      await page.goto(
        `${runtime.urls.main}/back-office/stores/${store.storeId}/contacts?email=${encodeURIComponent(theirs)}`,
      );
      expect(await page.textContent('body')).toContain('No contact of this store has this address');
      expect(await text(page, '#timeline')).toBe('Nothing has happened to this address yet.');
      const otherStore = await page.goto(
        `${runtime.urls.main}/back-office/stores/${other.storeId}/contacts?email=${encodeURIComponent(theirs)}`,
      );
      expect(otherStore?.status()).toBe(404);
      const bad = await page.goto(
        `${runtime.urls.main}/back-office/stores/${store.storeId}/contacts?email=not-an-address`,
      );
      expect(bad?.status()).toBe(400);
      expect(await page.textContent('body')).toContain('email must be an email address');
    });
  });
});

describe('the console flow editor in headless Chromium', SLOW_MACHINE, () => {
  it('creates a flow from a preset, previews and saves an edited subject, enables it, and counts its email', async () => {
    await signedIn(async (page) => {
      await page.goto(`${runtime.urls.main}/back-office/stores/${store.storeId}`);
      await Promise.all([page.waitForURL(/\/new-flow$/), page.click('a:has-text("New flow from a preset")')]);
      await shot(page, 'new-flow');
      await page.check('input[name=preset][value=abandoned_cart]');
      await page.fill('#from_email', senderOf(store).email);
      await page.fill('#name', 'Second rescue');
      await Promise.all([page.waitForURL(/\/flows\/fl_/), page.click('button:has-text("Create the flow")')]);
      const flowId = new URL(page.url()).pathname.split('/').pop() as string;
      expect(await text(page, 'h1')).toBe('Second rescue');
      await shot(page, 'new-flow-created');
      expect(await text(page, '#flow-facts [data-key=state] dd')).toBe('Disabled');
      // No run of its own yet: previewed for the store's latest abandoned-cart trigger (the buyer and the lamp).
      expect(await page.locator('section.email[data-step=cart-reminder] .subject').textContent()).toContain(
        'Ada, you left something in your cart',
      );

      await Promise.all([
        page.waitForURL(/\/steps\/cart-reminder$/),
        page.click('#steps tr[data-step=cart-reminder] a'),
      ]);
      expect(await page.inputValue('#subject')).toContain('left something in your cart');
      await page.fill('#subject', '{{ contact.first_name }}, your lamp is waiting');
      await Promise.all([page.waitForLoadState('load'), page.click('button[value=preview]')]);
      expect(await text(page, '#preview + section .subject')).toBe('Subject: Ada, your lamp is waiting');
      expect(await page.frameLocator('section.email iframe >> nth=1').locator('body').textContent()).toContain(
        'Desk lamp',
      );
      await shot(page, 'step-preview');
      // A preview saves nothing.
      const before = await api(runtime, store.apiKey, 'GET', `/api/v1/flows/${flowId}`);
      expect(JSON.stringify(before.body)).toContain('left something in your cart');

      // A template that does not parse: the reason beside the form, nothing saved.
      await page.fill('#subject', 'Hello {% if %}');
      const refused = await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'POST'),
        page.click('button[value=save]'),
      ]);
      expect(refused[0].status()).toBe(400);
      expect(await text(page, '[role=alert]')).toContain('subject');
      expect(await page.inputValue('#subject')).toBe('Hello {% if %}');
      await shot(page, 'step-refused');
      expect(await seriousViolations(page)).toEqual([]);

      await page.fill('#subject', '{{ contact.first_name }}, your lamp is waiting');
      await Promise.all([page.waitForURL(/\/flows\/fl_[^/]+$/), page.click('button[value=save]')]);
      expect(await text(page, '#steps tr[data-step=cart-reminder] td')).toContain('your lamp is waiting');
      await Promise.all([page.waitForLoadState('load'), page.click('button:has-text("Enable this flow")')]);
      expect(await flowEnabled(store, flowId)).toBe(true);

      // A new cart, an hour later: the new flow emails it with the saved subject, and its funnel counts it.
      const secondCart = uid('cart');
      await event(runtime, store, 'carts/create', {
        token: secondCart,
        email,
        checkout_url: `https://shop.example/cart/${secondCart}`,
        line_items: [cartLine('p-1', 'Desk lamp', '19.90')],
      });
      await settled(runtime);
      await runtime.advanceClock(61 * 60);
      const mails = await awaitMails(runtime, email, 3);
      expect(mails.map((m) => m.subject)).toContain('Ada, your lamp is waiting');
      await eventually('the new flow counted its email', async () => {
        const answer = await api(runtime, store.apiKey, 'GET', `/api/v1/flows/${flowId}/stats`);
        return (answer.body as { data: { emailed: number } }).data.emailed === 1 ? true : undefined;
      });
      await page.reload();
      expect(await text(page, '#flow-facts [data-key=entered] dd')).toBe('1');
      expect((await page.locator('#steps tr[data-step=cart-reminder] td').allTextContents())[1]?.trim()).toBe('1');
    });
  });

  it('refuses a cross-site edit, and another store’s flow step 404', async () => {
    await signedIn(async (page, context) => {
      const step = `${runtime.urls.main}/back-office/stores/${store.storeId}/flows/${flow.id}/steps/cart-reminder`;
      const forged = await context.request.post(step, {
        headers: { origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
        data: 'subject=Hacked&action=save',
        maxRedirects: 0,
      });
      expect(forged.status()).toBe(403);
      expect(JSON.stringify((await api(runtime, store.apiKey, 'GET', `/api/v1/flows/${flow.id}`)).body)).not.toContain(
        'Hacked',
      );
      const theirs = `${runtime.urls.main}/back-office/stores/${store.storeId}/flows/${otherFlow.id}/steps/order-confirmation`;
      expect((await page.goto(theirs))?.status()).toBe(404);
    });
  });
});

/** A delivery of the marketing subscription that failed for good, created `ago` ms before now (seeded). */
const failedDelivery = async (ago: number) => {
  const id = `dl_${uid('seeded').replace(/[^A-Za-z0-9]/g, '')}`;
  const at = Date.now() - ago;
  await dynamoDeliveryRepository().save(
    {
      storeId: store.storeId,
      id,
      webhookId: marketingHook,
      topic: 'customer/marketing',
      url: receiver.url('/marketing'),
      eventId: `seeded#${id}`,
      body: JSON.stringify({ seeded: id }),
      status: 'failed',
      reason: 'exhausted',
      attempts: [{ at, statusCode: 500, latencyMs: 3, outcome: 'rejected' }],
      createdAt: at,
      updatedAt: at,
      revision: 1,
    },
    0,
  );
  return id;
};

const deliveryStatus = async (page: Page, id: string) => {
  await page.reload();
  return (await page.locator(`tr[data-delivery="${id}"] td[data-status]`).getAttribute('data-status')) ?? '';
};

describe('the console webhooks page in headless Chromium', SLOW_MACHINE, () => {
  it('shows each delivery with its attempts and the success rate, and re-sends a failed one', async () => {
    const failed = await failedDelivery(60_000);
    await signedIn(async (page) => {
      await page.goto(`${runtime.urls.main}/back-office/stores/${store.storeId}`);
      await Promise.all([page.waitForURL(/\/webhooks$/), page.click('a:has-text("Webhooks")')]);
      const section = page.locator(`section[data-webhook="${marketingHook}"]`);
      expect(await section.locator('h2').textContent()).toBe('customer/marketing');
      // The delivered one took two attempts (a 500, then 200); with the failed one: one of two finished delivered.
      const delivered = section.locator('td[data-status=delivered]').first().locator('xpath=..');
      expect(await delivered.locator('summary').textContent()).toBe('2 attempts');
      expect(await delivered.locator('li').allTextContents()).toEqual([
        expect.stringContaining('rejected (HTTP 500)'),
        expect.stringContaining('delivered (HTTP 200)'),
      ]);
      expect(await text(page, '.success-rate')).toBe('50.0 %');
      await shot(page, 'webhooks');
      expect(await seriousViolations(page)).toEqual([]);

      const before = receiver.received('/marketing').length;
      await Promise.all([
        page.waitForURL(/resent=1/),
        page.click(`tr[data-delivery="${failed}"] button:has-text("Re-send")`),
      ]);
      expect(await text(page, '#notice')).toBe('1 delivery re-sent.');
      await receiver.waitFor('/marketing', before + 1, 30_000);
      await eventually('the re-sent delivery delivered', async () =>
        (await deliveryStatus(page, failed)) === 'delivered' ? true : undefined,
      );
    });
  });

  it('re-sends every failed delivery since the chosen time, and none older', async () => {
    const recent = await failedDelivery(60 * 60_000);
    const older = await failedDelivery(3 * 60 * 60_000);
    await signedIn(async (page) => {
      await page.goto(`${runtime.urls.main}/back-office/stores/${store.storeId}/webhooks`);
      const since = new Date(Date.now() - 2 * 60 * 60_000).toISOString().slice(0, 16);
      await page.fill(`#since-${marketingHook}`, since);
      await Promise.all([page.waitForURL(/resent=/), page.click('button:has-text("Re-send failed")')]);
      expect(await text(page, '#notice')).toBe('1 delivery re-sent.');
      await eventually('the recent one delivered', async () =>
        (await deliveryStatus(page, recent)) === 'delivered' ? true : undefined,
      );
      expect(await deliveryStatus(page, older)).toBe('failed');
    });
  });

  it('refuses a cross-site re-send, and another store’s delivery or subscription 404', async () => {
    const failed = await failedDelivery(30_000);
    const other = tenant.stores[1] as OwnedStore;
    await signedIn(async (_page, context) => {
      const resend = `${runtime.urls.main}/back-office/stores/${store.storeId}/webhooks/resend`;
      const form = { 'content-type': 'application/x-www-form-urlencoded' };
      const forged = await context.request.post(resend, {
        headers: { ...form, origin: 'https://evil.example' },
        data: `delivery=${failed}`,
        maxRedirects: 0,
      });
      expect(forged.status()).toBe(403);
      const elsewhere = await context.request.post(
        `${runtime.urls.main}/back-office/stores/${other.storeId}/webhooks/resend`,
        { headers: form, data: `delivery=${failed}`, maxRedirects: 0 },
      );
      expect(elsewhere.status()).toBe(404);
      const unknownHook = await context.request.post(resend, {
        headers: form,
        data: 'webhook=wh_not_ours&since=2020-01-01T00:00',
        maxRedirects: 0,
      });
      expect(unknownHook.status()).toBe(404);
    });
    expect((await dynamoDeliveryRepository().get(store.storeId, failed))?.status).toBe('failed');
  });
});

describe('the console senders page in headless Chromium', SLOW_MACHINE, () => {
  it('lists the domains with their DNS records and state, adds one, and checks it again once verified', async () => {
    const domain = `news-${uid('d')
      .toLowerCase()
      .replace(/[^a-z0-9]/g, '')}.example`;
    const ownDomain = senderOf(store).email.split('@')[1] as string;
    await signedIn(async (page) => {
      await page.goto(`${runtime.urls.main}/back-office/stores/${store.storeId}`);
      await Promise.all([page.waitForURL(/\/senders$/), page.click('a:has-text("Sending domains")')]);
      const own = page.locator(`tr[data-domain="${ownDomain}"]`);
      expect(await own.locator('td[data-status]').getAttribute('data-status')).toBe('verified');
      expect(await own.locator('ul.records li').count()).toBe(3);
      expect(await own.locator('ul.records').textContent()).toContain(`._domainkey.${ownDomain}`);
      await shot(page, 'senders');
      expect(await seriousViolations(page)).toEqual([]);

      // SES has not verified the new domain yet: it is listed pending, with its records to publish.
      runtime.ses.setIdentityStatus(domain, 'pending');
      await page.fill('#domain', domain);
      await Promise.all([page.waitForLoadState('load'), page.click('button:has-text("Add")')]);
      expect(await text(page, '#notice')).toBe(`${domain}: pending`);
      const added = page.locator(`tr[data-domain="${domain}"]`);
      expect(await added.locator('td[data-status]').getAttribute('data-status')).toBe('pending');
      expect(await added.locator('ul.records li').count()).toBe(3);

      runtime.ses.setIdentityStatus(domain, 'verified');
      await Promise.all([page.waitForLoadState('load'), added.locator('button:has-text("Check now")').click()]);
      expect(await text(page, '#notice')).toBe(`${domain}: verified`);
      expect(await page.locator(`tr[data-domain="${domain}"] td[data-status]`).getAttribute('data-status')).toBe(
        'verified',
      );
    });
  });

  it('refuses another store’s domain and a malformed one beside the form', async () => {
    const other = tenant.stores[1] as OwnedStore;
    const theirs = senderOf(other).email.split('@')[1] as string;
    await signedIn(async (page) => {
      await page.goto(`${runtime.urls.main}/back-office/stores/${store.storeId}/senders`);
      await page.fill('#domain', theirs);
      const [answer] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'POST'),
        page.click('button:has-text("Add")'),
      ]);
      expect(answer.status()).toBe(400);
      expect(await text(page, '[role=alert]')).toContain('registered by another store');
      expect(await page.locator(`tr[data-domain="${theirs}"]`).count()).toBe(0);
      await page.fill('#domain', 'not a domain');
      await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'POST'),
        page.click('button:has-text("Add")'),
      ]);
      expect(await text(page, '[role=alert]')).toContain('domain must be a domain name');
    });
  });
});

describe('the console imports page in headless Chromium', SLOW_MACHINE, () => {
  it('lists the store’s import jobs with their counts and line errors, and none of another store', async () => {
    const other = tenant.stores[1] as OwnedStore;
    const file = imports.jsonl([imports.customer(uid('imp')), 'this line is not JSON', imports.customer(uid('imp'))]);
    const job = await imports.importAndWait(runtime, store.apiKey, file);
    const theirs = await imports.importAndWait(runtime, other.apiKey, imports.jsonl([imports.customer(uid('imp'))]));
    await signedIn(async (page) => {
      await page.goto(`${runtime.urls.main}/back-office/stores/${store.storeId}`);
      await Promise.all([page.waitForURL(/\/imports$/), page.click('a:has-text("Imports")')]);
      const row = page.locator(`tr[data-job="${job.jobId}"]`);
      expect(await row.locator('td[data-status]').getAttribute('data-status')).toBe('finished');
      const cells = (await row.locator('td').allTextContents()).map((cell) => cell.trim());
      // Created, status, lines read, imported, created, failed, line errors.
      expect(cells.slice(2, 6)).toEqual(['3', '2', '2', '1']);
      expect(await row.locator('summary').textContent()).toBe('1 line error');
      expect(await row.locator('li').textContent()).toMatch(/^Line 2: /);
      expect(await page.locator(`tr[data-job="${theirs.jobId}"]`).count()).toBe(0);
      await shot(page, 'imports');
      expect(await seriousViolations(page)).toEqual([]);
    });
  });
});

describe('the console bulk sending pages in headless Chromium', SLOW_MACHINE, () => {
  it('lists the store’s bulk sends with their counts, and one send’s rejected recipients with why', async () => {
    const domain = senderOf(store).email.split('@')[1] as string;
    const answer = await sending.send(
      runtime,
      store,
      sending.bulk(domain, {
        from: { name: 'The Shop', email: `news@${domain}` },
        subject: 'Spring <sale>',
        recipients: [
          ...sending.recipients(3, 'bulk-console.example', (i) => ({ firstName: `P${i}` })),
          { address: { email: 'not-an-address' } },
        ],
      }),
    );
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const id = String(answer.body.id);
    await eventually('the batch sent', async () => {
      const read = await sending.readBatch(runtime, store, id);
      return read.body.status === 'sent' ? true : undefined;
    });
    await signedIn(async (page) => {
      await page.goto(`${runtime.urls.main}/back-office/stores/${store.storeId}`);
      await Promise.all([page.waitForURL(/\/sending$/), page.click('a:has-text("Bulk sending")')]);
      const row = page.locator(`tr[data-batch="${id}"]`);
      expect(await row.locator('th').textContent()).toBe('Spring <sale>');
      const cells = (await row.locator('td').allTextContents()).map((cell) => cell.trim());
      // Created, status, accepted, rejected, sent, failed, pending.
      expect(cells.slice(1)).toEqual(['sent', '3', '1', '3', '0', '0']);
      await Promise.all([page.waitForURL(new RegExp(`/sending/${id}$`)), row.locator('a').click()]);
      expect(await text(page, '#batch-counts [data-key=sent] dd')).toBe('3');
      const rejected = (await page.locator('#recipients tbody tr').allTextContents()).map((r) =>
        r.replace(/\s+/g, ' '),
      );
      expect(rejected).toHaveLength(1);
      expect(rejected[0]).toContain('not-an-address');
      expect(rejected[0]).toContain('rejected');
      await shot(page, 'batch');
      expect(await seriousViolations(page)).toEqual([]);
      const other = tenant.stores[1] as OwnedStore;
      expect(
        (await page.goto(`${runtime.urls.main}/back-office/stores/${other.storeId}/sending/${id}`))?.status(),
      ).toBe(404);
    });
  });
});
