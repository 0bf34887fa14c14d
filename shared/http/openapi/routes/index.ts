/**
 * Every documented route, by catalog function name. A team documents its routes in its own file here and spreads it in
 * below (one line); `test/unit/openapi/document.test.ts` names any catalog route missing from this map.
 */
import type { Exclusions, RouteDoc } from '#shared/http/openapi/registry.ts';
import { BACKTEST_ROUTES } from './backtest.ts';
import { CAMPAIGN_ROUTES } from './campaigns.ts';
import { CONTACT_ROUTES } from './contacts.ts';
import { EVENT_ROUTES } from './events.ts';
import { FLOW_RUN_ROUTES } from './flow-runs.ts';
import { FLOW_ROUTES } from './flows.ts';
import { META_ROUTES } from './meta.ts';
import { OAUTH_ROUTES } from './oauth.ts';
import { SEGMENT_ROUTES } from './segments.ts';
import { SENDING_ROUTES } from './sending.ts';
import { SETTINGS_ROUTES } from './settings.ts';
import { STATS_ROUTES } from './stats.ts';
import { WEBHOOK_ROUTES } from './webhooks.ts';

export const ROUTE_DOCS: Readonly<Record<string, RouteDoc>> = {
  ...EVENT_ROUTES,
  ...CONTACT_ROUTES,
  ...WEBHOOK_ROUTES,
  ...FLOW_ROUTES,
  ...FLOW_RUN_ROUTES,
  ...SEGMENT_ROUTES,
  ...CAMPAIGN_ROUTES,
  ...STATS_ROUTES,
  ...BACKTEST_ROUTES,
  ...SENDING_ROUTES,
  ...SETTINGS_ROUTES,
  ...OAUTH_ROUTES,
  ...META_ROUTES,
};

/** Catalog HTTP functions left out of the public description on purpose, with why. */
export const EXCLUDED_ROUTES: Exclusions = {
  'headless-events-preflight':
    'The CORS preflight (OPTIONS) browsers send on their own before a page posts a headless event: headers, no body',
  'unsubscribe-page':
    'The HTML confirmation page behind the link in every email (the token is the credential), for people',
  'sign-up-confirm-page':
    "The HTML page behind the link in a publishable-key sign-up's confirmation email (the token is the credential)",
  'sign-up-confirm': "The confirmation page's button (a form post): confirms the sign-up, answers an HTML page",
  unsubscribe: 'The RFC 8058 one-click unsubscribe that mail clients post from the List-Unsubscribe header',
  'oauth-callback': 'The one-time sign-in link a person opens in a browser: a redirect and a session cookie, not JSON',
  'back-office':
    'The back-office page a signed-in person opens in a browser (session cookie, no store key): HTML, not JSON',
  'console-store':
    "The console's store overview a signed-in person opens in a browser (session cookie, no store key): HTML, not JSON",
  'console-flows':
    "The console's flows page a signed-in person opens in a browser (session cookie, no store key): HTML, not JSON",
  'console-contacts':
    "The console's contact page a signed-in person opens in a browser (session cookie, no store key): HTML, not JSON",
  'console-new-flow': "The console's new-flow form (GET shows it, its POST creates the flow): HTML, not JSON",
  'console-step': "The console's email step form (GET shows it, its POST previews or saves the step): HTML, not JSON",
  'console-webhooks': "The console's webhooks page a signed-in person opens in a browser (session cookie): HTML",
  'console-webhooks-resend': "The console webhooks page's re-send forms (form posts with the session cookie): HTML",
  'console-senders': "The console's sending domains page (GET shows them, its POST adds or checks one): HTML",
  'console-imports': "The console's imports page a signed-in person opens in a browser (session cookie): HTML",
  'console-sending': "The console's bulk sending page a signed-in person opens in a browser (session cookie): HTML",
  'console-batch': "The console's page of one bulk send (session cookie): HTML, not JSON",
  'console-flow':
    "The console's flow page a signed-in person opens in a browser (session cookie, no store key): HTML, not JSON",
  'console-flow-settings':
    "The console's flow settings form (GET shows it, its POST saves name, conditions and waits): HTML, not JSON",
  'console-flow-state': "The console flow page's enable/disable button (a form post with the session cookie): HTML",
  'console-segments': "The console's segments page a signed-in person opens in a browser (session cookie): HTML",
  'console-segment': "The console's page of one segment and its members (session cookie): HTML, not JSON",
  'console-campaigns': "The console's campaigns page a signed-in person opens in a browser (session cookie): HTML",
  'console-campaign': "The console's page of one campaign and its recipients (session cookie): HTML, not JSON",
  'console-campaign-cancel': "The console campaign page's Cancel button (a form post with the session cookie): HTML",
  'back-office-sign-out':
    "The back-office page's sign-out button (a form post with the session cookie): an HTML page, not JSON",
};
