/**
 * A storefront page in headless Chromium (playwright-core, as test/integration/oauth/browser.test.ts) posting a headless
 * event with the store's publishable key to the local front host: from an origin the store allows it goes through the
 * preflight and is accepted; from another origin the browser gets no readable answer and nothing is recorded; the
 * same key on the contact export answers 401.
 */
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamoEventLog } from '#shared/adapters/dynamodb/event-log.repository.ts';
import { issuePublishableKey } from '#shared/domain/stores/manage-stores.ts';
import { storeAdminDeps } from '#shared/wiring/store-admin.ts';
import { newStore, type TestStore } from '#test/support/local.ts';

const CHROMIUM = '/usr/bin/chromium';

let runtime: LocalRuntime;
let browser: Browser;
let store: TestStore;
let publishable: string;
const pages: Server[] = [];

/** A storefront page server on its own port: its own origin, `http://127.0.0.1:<port>`. */
const storefront = async (): Promise<string> => {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end('<!doctype html><title>Shop</title><h1>Shop</h1>');
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  pages.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`No Chromium at ${CHROMIUM}: install Debian's package, as scripts/ensure-browser.mjs does`);
  }
  runtime = await startLocalRuntime({ pollers: false, logLevel: 'ERROR' });
  store = await newStore('Storefront');
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
});

afterAll(async () => {
  await browser?.close();
  for (const server of pages) server.close();
  await runtime?.stop();
});

/** What the page's `fetch` of the headless event interface got: the answer it could read, or the error it threw. */
const postFromPage = async (pageOrigin: string, sourceId: string) => {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(pageOrigin);
    return await page.evaluate(
      async ({ url, key, sourceId }) => {
        try {
          const response = await fetch(url, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-service-access-token': key },
            body: JSON.stringify({
              endpoint: 'customers/create',
              source_id: sourceId,
              data: { id: sourceId, created_at: 1_700_000_000, email: `${sourceId}@example.com` },
            }),
          });
          return { status: response.status, body: await response.json() };
        } catch (error) {
          return { error: String(error) };
        }
      },
      { url: `${runtime.urls.front}/api/v1/headless/events`, key: publishable, sourceId },
    );
  } finally {
    await context.close();
  }
};

describe('a storefront page with the publishable key', { timeout: 120_000 }, () => {
  it('posts a headless event from an allowed origin, and gets nothing from another one', async () => {
    const shop = await storefront();
    const elsewhere = await storefront();
    publishable = (await issuePublishableKey(storeAdminDeps(), store.storeId, { origins: [shop] })).publishableKey;

    expect(await postFromPage(shop, 'browser-1')).toEqual({ status: 200, body: { success: true } });
    expect(await dynamoEventLog().recorded(store.storeId, 'browser-1')).toBeDefined();

    const refused = await postFromPage(elsewhere, 'browser-2');
    expect(refused).toEqual({ error: expect.stringMatching(/TypeError: Failed to fetch/) });
    expect(await dynamoEventLog().recorded(store.storeId, 'browser-2')).toBeUndefined();
  });

  it('gets 401 on the contact export with the same key', async () => {
    const answer = await fetch(`${runtime.urls.front}/api/v1/audience?page=1`, {
      headers: { 'x-service-access-token': publishable },
    });
    expect(answer.status).toBe(401);
  });
});
