/**
 * The sending-standing banner on every console page: a store warned or paused by the bounce and complaint guard
 * (docs/sending.md) says so at the top of each page, with the reason and what to do. `openConsoleStore` reads the
 * standing and notes it for the request; the route wrapper puts the banner at the top of the page's `<main>`.
 */
import type { Standing } from '#shared/domain/email/reputation.ts';
import { escapeHtml } from '#shared/http/back-office-pages.ts';

const banners = new WeakMap<object, string>();

const bannerOf = (standing: Exclude<Standing, { state: 'ok' }>): string =>
  standing.state === 'paused'
    ? `<section class="standing paused" role="alert" aria-label="Sending standing"><h2>Marketing email is paused for this store</h2><p>${escapeHtml(
        `Because ${standing.reason}.`,
      )} Flows' marketing emails are skipped (their runs exit with this reason) and bulk sends and campaigns are refused; transactional flow email still goes. Clean the list — the contacts who bounced or marked email as spam are suppressed, each with its history on the contacts page — then ask the operator to resume sending.</p></section>`
    : `<section class="standing warning" role="status" aria-label="Sending standing"><h2>Your emails bounce or are marked as spam more than they should</h2><p>${escapeHtml(
        `Because ${standing.reason}.`,
      )} Nothing is stopped yet; past SES's pause level this store's marketing email would be paused. Clean the list and check that every contact asked for your email.</p></section>`;

/** Notes the store's standing for this request: a page answered to it carries the banner (nothing when `ok`). */
export const noteStanding = (event: object, standing: Standing): void => {
  if (standing.state !== 'ok') banners.set(event, bannerOf(standing));
};

/** The page with the request's banner at the top of its `<main>`, if any (any other body as it is). */
export const withStandingBanner = (event: object, body: string): string => {
  const banner = banners.get(event);
  if (!banner) return body;
  const at = body.indexOf('<main>');
  return at === -1 ? body : `${body.slice(0, at + 6)}\n${banner}${body.slice(at + 6)}`;
};
