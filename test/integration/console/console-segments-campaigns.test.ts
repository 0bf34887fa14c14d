/**
 * The console's segments and campaigns pages in headless Chromium: segments and campaigns created over the
 * API, shown with their live counts, conditions, members, state, progress, stats and recipients (paged); a scheduled
 * campaign cancelled with the page's button; another store's pages, segments and campaigns answering 404, no session
 * 401. Leaves screenshots in `test-output/console/`.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { ensureSender, eventually, senderOf } from '#test/integration/flows/engine-support.ts';
import { importAndWait } from '#test/integration/imports/support.ts';
import { launchBrowser, seriousViolations, shot, signedInAs, text } from '#test/support/console-browser.ts';
import { newSubAccount, newTenant, type OwnedStore, primary, type Tenant } from '#test/support/oauth.ts';
import { api } from '#test/support/webhooks.ts';

const SLOW_MACHINE = { timeout: 180_000 };
/** More than a page of members (50) and of recipients (50). */
const CONTACTS = 60;
/** A segment name a careless page would turn into markup. */
const MARKUP_NAME = 'Winter <b id="injected">VIPs</b>';

interface CampaignView {
  id: string;
  status: 'scheduled' | 'sending' | 'sent' | 'cancelled';
  progress: { recipients: number; sent: number };
}

let runtime: LocalRuntime;
let tenant: Tenant;
let store: OwnedStore;
let other: OwnedStore;
let browser: Browser;
let username: string;
let segmentId: string;
let excludedId: string;
let sent: CampaignView;
let scheduled: CampaignView;
let theirSegment: string;
let theirCampaign: CampaignView;

const createSegment = async (owner: OwnedStore, name: string, tag: string) => {
  const answer = await api(runtime, owner.apiKey, 'POST', '/api/v1/segments', {
    name,
    conditions: { match: 'all', conditions: [{ field: 'contact.tags', op: 'contains', value: tag }] },
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return (answer.body as { data: { id: string } }).data.id;
};

const segmentCount = async (owner: OwnedStore, id: string) =>
  ((await api(runtime, owner.apiKey, 'GET', `/api/v1/segments/${id}`)).body as { data?: { count: number } }).data
    ?.count;

const createCampaign = async (owner: OwnedStore, body: Record<string, unknown>) => {
  const answer = await api(runtime, owner.apiKey, 'POST', '/api/v1/campaigns', {
    from: senderOf(owner),
    subject: 'Winter sale, {{ contact.first_name }}',
    html: '<p>Hello {{ contact.first_name }}</p>',
    text: 'Hello {{ contact.first_name }}',
    ...body,
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(202);
  return (answer.body as { data: CampaignView }).data;
};

const readCampaign = async (owner: OwnedStore, id: string) => {
  const answer = await api(runtime, owner.apiKey, 'GET', `/api/v1/campaigns/${id}`);
  return answer.status === 200 ? (answer.body as { data: CampaignView }).data : undefined;
};

const inFuture = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();

const contactLines = (count: number, tag: (i: number) => string[]) =>
  `${Array.from({ length: count }, (_, i) =>
    JSON.stringify({
      id: `c-${String(i).padStart(3, '0')}`,
      email: `c${i}@console-campaign.example`,
      first_name: `P${i}`,
      created_at: 1_700_000_000,
      email_marketing_consent: { state: 'subscribed' },
      tags: tag(i),
    }),
  ).join('\n')}\n`;

beforeAll(async () => {
  runtime = await startLocalRuntime({ logLevel: 'ERROR' });
  tenant = await newTenant('Console Campaigns', 2);
  store = primary(tenant);
  other = tenant.stores[1] as OwnedStore;
  username = await newSubAccount(tenant, [store.storeId]);
  await ensureSender(runtime, store);
  await ensureSender(runtime, other);

  // Every contact tagged `winter`; the first five also `staff` (excluded from the campaign).
  const job = await importAndWait(
    runtime,
    store.apiKey,
    contactLines(CONTACTS, (i) => (i < 5 ? ['winter', 'staff'] : ['winter'])),
  );
  expect(job).toMatchObject({ result: 'SUCCESS', counts: { imported: CONTACTS } });
  segmentId = await createSegment(store, MARKUP_NAME, 'winter');
  excludedId = await createSegment(store, 'Staff', 'staff');
  await importAndWait(
    runtime,
    other.apiKey,
    contactLines(3, () => ['theirs']),
  );
  theirSegment = await createSegment(other, 'Their segment', 'theirs');
  await eventually(
    'segments built',
    async () =>
      (await segmentCount(store, segmentId)) === CONTACTS &&
      (await segmentCount(store, excludedId)) === 5 &&
      (await segmentCount(other, theirSegment)) === 3
        ? true
        : undefined,
    120_000,
  );

  // One campaign sent now (55 recipients: 60 minus the 5 excluded), one scheduled in an hour, one of the other store.
  sent = await createCampaign(store, { name: 'Winter sale', segments: [segmentId], excludeSegments: [excludedId] });
  scheduled = await createCampaign(store, { name: 'Spring preview', segments: [segmentId], sendAt: inFuture(60) });
  theirCampaign = await createCampaign(other, {
    name: 'Their campaign',
    segments: [theirSegment],
    sendAt: inFuture(60),
  });
  sent = await eventually(
    'the campaign sent',
    async () => {
      const read = await readCampaign(store, sent.id);
      return read?.status === 'sent' ? read : undefined;
    },
    120_000,
  );
  browser = await launchBrowser();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await runtime?.stop();
});

const signedIn = (run: (page: Page, context: BrowserContext) => Promise<void>) =>
  signedInAs(browser, runtime, store, username)(run);

const cellsOf = async (page: Page, row: string) =>
  (await page.locator(`${row} td`).allTextContents()).map((cell) => cell.replace(/\s+/g, ' ').trim());

describe('the console segments pages in headless Chromium', SLOW_MACHINE, () => {
  it('lists the segments with their live counts and conditions, and pages a segment’s members', async () => {
    expect(sent.progress).toMatchObject({ recipients: CONTACTS - 5, sent: CONTACTS - 5 });
    await signedIn(async (page) => {
      await page.goto(`${runtime.urls.main}/back-office/stores/${store.storeId}`);
      await Promise.all([page.waitForURL(/\/segments$/), page.click('a:has-text("Segments")')]);
      expect(await text(page, 'h1')).toBe('Segments');
      const row = `#segments tr[data-segment="${segmentId}"]`;
      expect(await page.locator(`${row} th`).textContent()).toContain(MARKUP_NAME);
      expect(await text(page, `${row} [data-key=count]`)).toBe(String(CONTACTS));
      expect(await text(page, `${row} [data-key=status]`)).toBe('ready');
      expect(await text(page, `${row} [data-key=conditions]`)).toBe('contact.tags contains "winter"');
      expect(await text(page, `#segments tr[data-segment="${excludedId}"] [data-key=count]`)).toBe('5');
      expect(await page.textContent('body')).not.toContain('Their segment');
      expect(await page.locator('#injected').count()).toBe(0);
      await shot(page, 'segments');
      expect(await seriousViolations(page)).toEqual([]);

      await Promise.all([page.waitForURL(/\/segments\/seg_/), page.click(`${row} a`)]);
      expect(await text(page, 'h1')).toBe(MARKUP_NAME);
      expect(await text(page, '#segment-facts [data-key=count] dd')).toBe(String(CONTACTS));
      expect(await text(page, '#conditions')).toBe('Conditions: contact.tags contains "winter"');
      expect(await page.locator('#members tbody tr').count()).toBe(50);
      expect(await text(page, '#members tbody tr:first-child')).toContain('c0@console-campaign.example');
      expect(await page.locator('#injected').count()).toBe(0);
      await shot(page, 'segment');
      expect(await seriousViolations(page)).toEqual([]);
      await Promise.all([page.waitForURL(/cursor=/), page.click('#more-members')]);
      expect(await page.locator('#members tbody tr').count()).toBe(CONTACTS - 50);
      expect(await page.locator('#more-members').count()).toBe(0);
    });
  });
});

describe('the console campaigns pages in headless Chromium', SLOW_MACHINE, () => {
  it('lists the campaigns with segments, exclusions, state, progress and stats', async () => {
    await signedIn(async (page) => {
      await page.goto(`${runtime.urls.main}/back-office/stores/${store.storeId}`);
      await Promise.all([page.waitForURL(/\/campaigns$/), page.click('a:has-text("Campaigns")')]);
      expect(await text(page, 'h1')).toBe('Campaigns');
      const row = `#campaigns tr[data-campaign="${sent.id}"]`;
      expect(await text(page, `${row} th`)).toContain('Winter sale');
      expect(await text(page, `${row} th`)).toContain('Winter sale, {{ contact.first_name }}');
      expect(await text(page, `${row} [data-key=segments]`)).toBe(MARKUP_NAME);
      expect(await text(page, `${row} [data-key=excluded]`)).toBe('Staff');
      expect(await text(page, `${row} [data-key=status]`)).toBe('sent');
      expect(await text(page, `${row} [data-key=progress]`)).toContain('55 sent of 55 queued');
      expect(await text(page, `${row} [data-key=stats]`)).toMatch(/^55 → \d+ → \d+ → \d+ → \d+$/);
      const later = `#campaigns tr[data-campaign="${scheduled.id}"]`;
      expect(await text(page, `${later} [data-key=status]`)).toBe('scheduled');
      expect(await text(page, `${later} [data-key=excluded]`)).toBe('none');
      expect(await page.textContent('body')).not.toContain('Their campaign');
      expect(await page.locator('#injected').count()).toBe(0);
      await shot(page, 'campaigns');
      expect(await seriousViolations(page)).toEqual([]);
    });
  });

  it('shows a sent campaign’s stats and its recipients’ outcomes, paged, without a Cancel button', async () => {
    await signedIn(async (page) => {
      await page.goto(`${runtime.urls.main}/back-office/stores/${store.storeId}/campaigns`);
      await Promise.all([
        page.waitForURL(/\/campaigns\/cmp_/),
        page.click(`#campaigns tr[data-campaign="${sent.id}"] th a`),
      ]);
      expect(await text(page, 'h1')).toBe('Winter sale');
      expect(await text(page, '#campaign-progress [data-key=status] dd')).toBe('sent');
      expect(await text(page, '#campaign-progress [data-key=sent] dd')).toBe('55');
      expect(await text(page, '#campaign-stats [data-key=sent] dd')).toBe('55');
      expect(await text(page, '#audience')).toBe(`To ${MARKUP_NAME}; excluding Staff.`);
      expect(await page.locator('button:has-text("Cancel this campaign")').count()).toBe(0);
      expect(await page.locator('#recipients tbody tr').count()).toBe(50);
      expect(await page.locator('#recipients tbody tr[data-status=sent]').count()).toBe(50);
      const first = await cellsOf(page, '#recipients tbody tr:first-child');
      // The five staff contacts (c-000 … c-004) were excluded: c-005 comes first.
      expect(first.slice(0, 3)).toEqual(['c-005', 'c5@console-campaign.example', 'sent']);
      expect(first[3]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d$/);
      await shot(page, 'campaign');
      expect(await seriousViolations(page)).toEqual([]);
      await Promise.all([page.waitForURL(/cursor=/), page.click('#more-recipients')]);
      expect(await page.locator('#recipients tbody tr[data-status=sent]').count()).toBe(5);
    });
  });

  it('refuses a cross-site cancel, then cancels the scheduled campaign with its button', async () => {
    await signedIn(async (page, context) => {
      const own = `${runtime.urls.main}/back-office/stores/${store.storeId}/campaigns/${scheduled.id}`;
      const forged = await context.request.post(`${own}/cancel`, {
        headers: { origin: 'https://evil.example' },
        maxRedirects: 0,
      });
      expect(forged.status()).toBe(403);
      expect((await readCampaign(store, scheduled.id))?.status).toBe('scheduled');

      await page.goto(own);
      expect(await text(page, '#campaign-progress [data-key=status] dd')).toBe('scheduled');
      expect(await text(page, '#recipients')).toBe('No recipient was taken.');
      await shot(page, 'campaign-scheduled');
      await Promise.all([page.waitForLoadState('load'), page.click('button:has-text("Cancel this campaign")')]);
      expect(page.url()).toBe(own);
      expect(await text(page, '#campaign-progress [data-key=status] dd')).toBe('cancelled');
      expect(await text(page, '#times')).toContain('cancelled');
      expect(await page.locator('button:has-text("Cancel this campaign")').count()).toBe(0);
      expect((await readCampaign(store, scheduled.id))?.status).toBe('cancelled');

      // Posting again (another tab) answers the API's 409 as a page.
      const again = await context.request.post(`${own}/cancel`, { maxRedirects: 0 });
      expect(again.status()).toBe(409);
      expect(await again.text()).toContain('only a scheduled or sending campaign can be cancelled');
    });
  });
});

describe('the console segments and campaigns pages of another store', SLOW_MACHINE, () => {
  it('answer 404 for another store and its segments and campaigns (nothing cancelled), and 401 without a session', async () => {
    const main = runtime.urls.main;
    await signedIn(async (page, context) => {
      for (const path of [
        `/back-office/stores/${other.storeId}/segments`,
        `/back-office/stores/${other.storeId}/campaigns`,
        `/back-office/stores/${other.storeId}/segments/${theirSegment}`,
        `/back-office/stores/${other.storeId}/campaigns/${theirCampaign.id}`,
        `/back-office/stores/${store.storeId}/segments/${theirSegment}`,
        `/back-office/stores/${store.storeId}/campaigns/${theirCampaign.id}`,
        `/back-office/stores/${store.storeId}/segments/seg_00000000000000000000`,
        `/back-office/stores/${store.storeId}/campaigns/not-a-campaign`,
      ]) {
        const answer = await page.goto(`${main}${path}`);
        expect(answer?.status(), path).toBe(404);
        expect(await page.textContent('body'), path).not.toContain('Their');
      }
      for (const path of [
        `/back-office/stores/${other.storeId}/campaigns/${theirCampaign.id}/cancel`,
        `/back-office/stores/${store.storeId}/campaigns/${theirCampaign.id}/cancel`,
      ]) {
        const post = await context.request.post(`${main}${path}`, { maxRedirects: 0 });
        expect(post.status(), path).toBe(404);
      }
      expect((await readCampaign(other, theirCampaign.id))?.status).toBe('scheduled');
    });
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      for (const path of [
        `/back-office/stores/${store.storeId}/segments`,
        `/back-office/stores/${store.storeId}/segments/${segmentId}`,
        `/back-office/stores/${store.storeId}/campaigns`,
        `/back-office/stores/${store.storeId}/campaigns/${sent.id}`,
      ]) {
        const answer = await page.goto(`${main}${path}`);
        expect(answer?.status(), path).toBe(401);
        expect(answer?.headers()['content-security-policy'], path).toContain("default-src 'none'");
      }
      const post = await context.request.post(
        `${main}/back-office/stores/${store.storeId}/campaigns/${sent.id}/cancel`,
        {
          maxRedirects: 0,
        },
      );
      expect(post.status()).toBe(401);
    } finally {
      await context.close();
    }
  });

  it('serves the pages with the back office’s headers and no script', async () => {
    await signedIn(async (page) => {
      for (const path of [
        `/back-office/stores/${store.storeId}/segments`,
        `/back-office/stores/${store.storeId}/segments/${segmentId}`,
        `/back-office/stores/${store.storeId}/campaigns`,
        `/back-office/stores/${store.storeId}/campaigns/${sent.id}`,
      ]) {
        const answer = await page.goto(`${runtime.urls.main}${path}`);
        expect(answer?.status(), path).toBe(200);
        const headers = answer?.headers() ?? {};
        expect(headers['content-security-policy'], path).toBe(
          "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
        );
        expect(headers['cache-control'], path).toBe('no-store');
        expect(await page.locator('script').count(), path).toBe(0);
      }
    });
  });
});
