/**
 * Driving the console in headless Chromium (playwright-core) in tests: launching the browser, signing in through the
 * sign-in link, reading text, saving a screenshot per page, and running axe-core in the page.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import type { LocalRuntime } from '#local/runtime.ts';
import { linkFor, type OwnedStore } from '#test/support/oauth.ts';

const CHROMIUM = '/usr/bin/chromium';
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Debian's Chromium, headless. */
export const launchBrowser = async (): Promise<Browser> => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`No Chromium at ${CHROMIUM}: install Debian's package (apt-get install chromium)`);
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
};

/** Runs `run` in a fresh browser context signed in to the back office as `username` (a sub-account of `store`'s owner). */
export const signedInAs =
  (browser: Browser, runtime: LocalRuntime, store: OwnedStore, username: string) =>
  async (run: (page: Page, context: BrowserContext) => Promise<void>) => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const page = await context.newPage();
      await page.goto(await linkFor(runtime.urls.main, store, username));
      await Promise.all([page.waitForURL(/\/back-office$/), page.click('button[type=submit]')]);
      await run(page, context);
    } finally {
      await context.close();
    }
  };

export const text = async (page: Page, selector: string) => ((await page.textContent(selector)) ?? '').trim();

/** Where the tests leave a screenshot of each page (README shows two of them, copied to docs/images). */
const SHOTS = join(import.meta.dirname, '../../test-output/console');

export const shot = async (page: Page, name: string) => {
  mkdirSync(SHOTS, { recursive: true });
  // The whole page in the viewport: Chromium leaves sandboxed (out-of-process) frames blank in a full-page capture
  // that reaches past the viewport.
  const height = await page.evaluate('document.documentElement.scrollHeight');
  await page.setViewportSize({ width: 1280, height: Math.min(Number(height) || 900, 6000) });
  await page.screenshot({ path: join(SHOTS, `${name}.png`) });
  await page.setViewportSize({ width: 1280, height: 900 });
};

/** axe-core's serious and critical violations in the page (evaluated through DevTools, which the page's CSP does not govern). */
export const seriousViolations = async (page: Page) => {
  await page.evaluate(AXE_SOURCE);
  const results = (await page.evaluate(
    '(async () => { const r = await axe.run(document); return r.violations.map((v) => ({ id: v.id, impact: v.impact })); })()',
  )) as { id: string; impact: string }[];
  return results.filter((v) => v.impact === 'serious' || v.impact === 'critical');
};
