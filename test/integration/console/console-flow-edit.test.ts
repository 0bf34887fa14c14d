/**
 * The console's flow settings form in headless Chromium, on the local runtime: renaming a flow, changing a wait (and
 * seeing the email go at the new time on the runtime's clock), setting entry conditions (and seeing who they skip and
 * why on the flow page), inline refusals of bad JSON and bad conditions, a change made meanwhile, a cross-site post
 * and another store's flow.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamoStoreReputation } from '#shared/adapters/dynamodb/store-reputation.ts';
import { reputationDays } from '#shared/domain/email/reputation.ts';
import { resumeSending } from '#shared/wiring/sending.ts';
import {
  address,
  awaitEvaluations,
  awaitMails,
  definedFlow,
  event,
  type FlowView,
  flowRuns,
  mailsTo,
  presetFlow,
  SENDER,
  settled,
  uid,
} from '#test/integration/flows/engine-support.ts';
import { launchBrowser, seriousViolations, shot, signedInAs, text } from '#test/support/console-browser.ts';
import { newSubAccount, newTenant, type OwnedStore, primary, type Tenant } from '#test/support/oauth.ts';
import { api } from '#test/support/webhooks.ts';

const SLOW_MACHINE = { timeout: 180_000 };
/** A name a careless page would turn into markup. */
const NEW_NAME = 'Thank-you <b id="injected">note</b> & more';

let runtime: LocalRuntime;
let tenant: Tenant;
let store: OwnedStore;
let other: OwnedStore;
let browser: Browser;
let flow: FlowView;
/** A flow of the tenant's other store, which the sub-account may not open. */
let otherFlow: FlowView;
let username: string;

/** An order-paid flow: wait an hour, leave if the order was refunded meanwhile, then thank the buyer. */
const THANK_YOU = {
  name: 'Thank-you note',
  trigger: 'order_paid',
  steps: [
    { type: 'wait', id: 'pause', seconds: 3600 },
    {
      type: 'exit_if',
      id: 'refunded',
      condition: { match: 'all', conditions: [{ field: 'event.status', op: 'equals', value: 'refunded' }] },
    },
    {
      type: 'email',
      id: 'thanks',
      from: SENDER,
      subject: 'Thank you for your order',
      text: 'Thanks, {{ order.name }}',
    },
  ],
};

beforeAll(async () => {
  runtime = await startLocalRuntime({ logLevel: 'ERROR' });
  tenant = await newTenant('Flow Edit Group', 2);
  store = primary(tenant);
  other = tenant.stores[1] as OwnedStore;
  username = await newSubAccount(tenant, [store.storeId]);
  flow = await definedFlow(runtime, store, THANK_YOU);
  otherFlow = await presetFlow(runtime, other, 'order_paid');
  browser = await launchBrowser();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await runtime?.stop();
});

const signedIn = (run: (page: Page, context: BrowserContext) => Promise<void>) =>
  signedInAs(browser, runtime, store, username)(run);

const flowPage = () => `${runtime.urls.main}/back-office/stores/${store.storeId}/flows/${flow.id}`;
const settingsPage = () => `${flowPage()}/settings`;

interface SavedFlow {
  name: string;
  revision: number;
  entry?: unknown;
  steps: { id: string; type: string; seconds?: number; condition?: unknown }[];
}

const saved = async (owner: OwnedStore, id: string) => {
  const answer = await api(runtime, owner.apiKey, 'GET', `/api/v1/flows/${id}`);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return (answer.body as { data: SavedFlow }).data;
};

const paidOrder = (email: string, total: string) =>
  event(runtime, store, 'orders/paid', {
    id: uid('order'),
    name: '#2001',
    customer_id: uid('cust'),
    email,
    order_status: 'paid',
    total_price: total,
    currency: 'EUR',
    line_items: [{ id: 'l1', product_id: 'p-1', title: 'Desk lamp', quantity: 1, price: total }],
  });

/** Clicks Save and answers the response to the form's post. */
const save = async (page: Page) => {
  const [answer] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === 'POST'),
    page.click('button:has-text("Save")'),
  ]);
  await page.waitForLoadState('load');
  return answer;
};

describe('the console flow settings in headless Chromium', SLOW_MACHINE, () => {
  it('renames the flow: the new name is on the flow page and the flows page, as text', async () => {
    await signedIn(async (page) => {
      await page.goto(flowPage());
      await Promise.all([page.waitForURL(/\/settings$/), page.click('a:has-text("Edit name and conditions")')]);
      expect(await text(page, 'h1')).toBe('Settings of Thank-you note');
      expect(await page.inputValue('#name')).toBe('Thank-you note');
      expect(await page.inputValue('#entry')).toBe('');
      expect(await page.inputValue('#wait-pause-amount')).toBe('1');
      expect(await page.inputValue('#wait-pause-unit')).toBe('hours');
      expect(JSON.parse(await page.inputValue('#exit-refunded'))).toEqual(THANK_YOU.steps[1]?.condition);
      await shot(page, 'flow-settings');
      expect(await seriousViolations(page)).toEqual([]);

      await page.fill('#name', NEW_NAME);
      await Promise.all([page.waitForURL(/\/flows\/fl_[^/]+$/), page.click('button:has-text("Save")')]);
      expect(await text(page, 'h1')).toBe(NEW_NAME);
      expect(await page.locator('#injected').count()).toBe(0);
      await page.goto(`${runtime.urls.main}/back-office/stores/${store.storeId}/flows`);
      expect(await page.locator('#flows tbody th', { hasText: NEW_NAME }).count()).toBe(1);
      expect(await page.locator('#injected').count()).toBe(0);
    });
    expect((await saved(store, flow.id)).name).toBe(NEW_NAME);
  });

  it('changes the wait from 1 hour to 2 hours: no email at 61 minutes, the email after 122', async () => {
    await signedIn(async (page) => {
      await page.goto(flowPage());
      await Promise.all([page.waitForURL(/\/settings#step-pause$/), page.click('#steps tr[data-step=pause] a')]);
      await page.fill('#wait-pause-amount', '2');
      await page.selectOption('#wait-pause-unit', 'hours');
      await Promise.all([page.waitForURL(/\/flows\/fl_[^/]+$/), page.click('button:has-text("Save")')]);
      expect(await text(page, '#steps tr[data-step=pause] td')).toMatch(/^Wait 2 h\b/);
    });
    expect((await saved(store, flow.id)).steps[0]).toMatchObject({ id: 'pause', seconds: 7200 });

    const buyer = address('patient-buyer');
    await paidOrder(buyer, '80.00');
    await settled(runtime);
    const [evaluation] = await awaitEvaluations(runtime, store, flow.id);
    expect(evaluation?.run?.status).toBe('waiting');
    await runtime.advanceClock(61 * 60);
    await settled(runtime);
    // The old wait would have ended by now.
    expect(await mailsTo(runtime, buyer)).toEqual([]);
    await runtime.advanceClock(61 * 60);
    const [mail] = await awaitMails(runtime, buyer);
    expect(mail?.subject).toBe('Thank you for your order');
  });

  it('sets entry conditions: a contact they exclude is skipped, and the flow page says which condition and why', async () => {
    const entry = { match: 'all', conditions: [{ field: 'event.total', op: 'greater_than', value: 50 }] };
    const small = address('small-spender');
    await signedIn(async (page) => {
      await page.goto(settingsPage());
      await page.fill('#entry', JSON.stringify(entry, null, 2));
      await Promise.all([page.waitForURL(/\/flows\/fl_[^/]+$/), page.click('button:has-text("Save")')]);
      expect(await text(page, '#entry code')).toBe('event.total greater_than 50');

      await paidOrder(small, '20.00');
      await settled(runtime);
      await awaitEvaluations(runtime, store, flow.id, 2);
      await page.reload();
      const row = page.locator('#runs tbody tr', { hasText: small });
      const outcome = ((await row.locator('td').last().textContent()) ?? '').replace(/\s+/g, ' ');
      expect(outcome).toContain('Skipped: condition_false');
      expect(outcome).toContain('event.total greater_than 50');
      expect(outcome).toContain('does not hold: the value was 20');
      await shot(page, 'flow-after-settings');
    });
    expect((await saved(store, flow.id)).entry).toEqual(entry);
    // The same decision in the API's explain view.
    const explained = (await flowRuns(runtime, store, flow.id)).list.find((item) => item.email === small);
    expect(explained).toMatchObject({ outcome: 'skipped', reason: 'condition_false' });
    expect(await mailsTo(runtime, small)).toEqual([]);
  });

  it('refuses bad JSON and a bad condition beside the field (400), as typed, and saves nothing', async () => {
    const before = await saved(store, flow.id);
    await signedIn(async (page) => {
      await page.goto(settingsPage());
      const typed = '{"match": "all",\n  "conditions": [}';
      await page.fill('#entry', typed);
      expect((await save(page)).status()).toBe(400);
      const error = 'entry is not valid JSON: expected a value';
      expect(await text(page, '[role=alert]')).toContain(error);
      expect(await text(page, '#entry-error')).toContain('at line 2, column 18');
      expect(await page.getAttribute('#entry', 'aria-invalid')).toBe('true');
      expect(await page.getAttribute('#entry', 'aria-describedby')).toBe('entry-hint entry-error');
      expect(await page.inputValue('#entry')).toBe(typed);
      await shot(page, 'flow-settings-refused');
      expect(await seriousViolations(page)).toEqual([]);

      await page.fill(
        '#entry',
        '{"match": "all", "conditions": [{"field": "event.total", "op": "greater_than", "value": "fifty"}]}',
      );
      await page.fill('#exit-refunded', '{"match": "every", "conditions": []}');
      await page.fill('#wait-pause-amount', '30');
      await page.selectOption('#wait-pause-unit', 'minutes');
      expect((await save(page)).status()).toBe(400);
      expect(await text(page, '#entry-error')).toBe('entry.conditions[0].value must be a number for greater_than');
      expect(await text(page, '#exit-refunded-error')).toContain('steps[1].condition.match must be "all" or "any"');
      // 30 minutes is a valid wait: it is kept as typed, and not saved either.
      expect(await page.locator('#wait-pause-error').count()).toBe(0);
      expect(await page.inputValue('#wait-pause-amount')).toBe('30');
    });
    expect(await saved(store, flow.id)).toEqual(before);
  });

  it('answers a form read before a change made elsewhere with "changed meanwhile" (409), keeping that change', async () => {
    await signedIn(async (page) => {
      await page.goto(settingsPage());
      const current = await saved(store, flow.id);
      const elsewhere = await api(runtime, store.apiKey, 'PUT', `/api/v1/flows/${flow.id}`, {
        ...current,
        name: 'Renamed through the API',
      });
      expect(elsewhere.status, JSON.stringify(elsewhere.body)).toBe(200);

      await page.fill('#name', 'Renamed in the console');
      expect((await save(page)).status()).toBe(409);
      expect(await text(page, '[role=alert]')).toContain('changed meanwhile');
      expect(await page.inputValue('#name')).toBe('Renamed in the console');
      expect((await saved(store, flow.id)).name).toBe('Renamed through the API');

      await Promise.all([page.waitForLoadState('load'), page.click('a:has-text("Reload the settings")')]);
      expect(await page.inputValue('#name')).toBe('Renamed through the API');
    });
  });

  it('answers the email step form read before a change made elsewhere with "changed meanwhile" (409) too', async () => {
    await signedIn(async (page) => {
      await page.goto(`${flowPage()}/steps/thanks`);
      await page.fill('#subject', 'Typed in the console');
      // A preview keeps the revision the form was read at.
      await Promise.all([page.waitForLoadState('load'), page.click('button[value=preview]')]);
      const current = await saved(store, flow.id);
      const elsewhere = await api(runtime, store.apiKey, 'PUT', `/api/v1/flows/${flow.id}`, {
        ...current,
        name: 'Renamed again through the API',
      });
      expect(elsewhere.status, JSON.stringify(elsewhere.body)).toBe(200);
      const [answer] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'POST'),
        page.click('button[value=save]'),
      ]);
      expect(answer.status()).toBe(409);
      expect(await text(page, '[role=alert]')).toContain('changed meanwhile');
      expect(await page.inputValue('#subject')).toBe('Typed in the console');
    });
    const after = await saved(store, flow.id);
    expect(after.name).toBe('Renamed again through the API');
    expect(JSON.stringify(after.steps)).not.toContain('Typed in the console');
  });

  it('refuses a cross-site post (403), and answers another store’s flow 404 without changing it', async () => {
    const before = await saved(store, flow.id);
    const theirs = await saved(other, otherFlow.id);
    await signedIn(async (page, context) => {
      const form = { 'content-type': 'application/x-www-form-urlencoded' };
      const forged = await context.request.post(settingsPage(), {
        headers: { ...form, origin: 'https://evil.example' },
        data: `name=Hacked&revision=${before.revision}`,
        maxRedirects: 0,
      });
      expect(forged.status()).toBe(403);

      for (const path of [
        `/back-office/stores/${store.storeId}/flows/${otherFlow.id}/settings`,
        `/back-office/stores/${other.storeId}/flows/${otherFlow.id}/settings`,
      ]) {
        expect((await page.goto(`${runtime.urls.main}${path}`))?.status(), path).toBe(404);
        const post = await context.request.post(`${runtime.urls.main}${path}`, {
          headers: form,
          data: `name=Hacked&revision=${theirs.revision}`,
          maxRedirects: 0,
        });
        expect(post.status(), path).toBe(404);
      }
    });
    expect(await saved(store, flow.id)).toEqual(before);
    expect(await saved(other, otherFlow.id)).toEqual(theirs);
  });

  it('shows a store the sending guard paused a banner on every page, with the reason and what to do', async () => {
    const [today] = reputationDays(Date.now()) as [string];
    const reputation = dynamoStoreReputation();
    await reputation.count(store.storeId, today, 'delivered', 176);
    await reputation.count(store.storeId, today, 'bounced', 24);
    try {
      await signedIn(async (page) => {
        const base = `${runtime.urls.main}/back-office/stores/${store.storeId}`;
        for (const path of [base, `${base}/flows`, flowPage(), settingsPage()]) {
          await page.goto(path);
          expect(await text(page, 'main > .standing h2'), path).toBe('Marketing email is paused for this store');
          // The file's earlier tests mailed too: their deliveries count beside the 200 written here.
          expect(await text(page, 'main > .standing p'), path).toMatch(
            /^Because its bounce rate over the last two days is [\d.]+% \(24 of 2\d\d\), above 10%\. .*resume sending\.$/,
          );
        }
        await page.goto(base);
        await shot(page, 'overview-sending-paused');
        expect(await seriousViolations(page)).toEqual([]);
      });
    } finally {
      await resumeSending(store.storeId);
    }
    await signedIn(async (page) => {
      await page.goto(flowPage());
      expect(await page.locator('.standing').count()).toBe(0);
    });
  });
});
