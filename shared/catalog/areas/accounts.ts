/** Accounts: OAuth sign-in, the back office, and the API description. */

import { area, route } from '#shared/catalog/function-spec.ts';
import { HOSTS } from '#shared/catalog/hosts.ts';

export const ACCOUNTS_FUNCTIONS = area('accounts', [
  // scrypt (32 MiB, CPU-bound): Lambda's CPU share grows with memory, so more memory makes a sign-in faster.
  route(
    'oauth-sign-in',
    ['POST', 'main', '/api/v1/oauth'],
    // The sign-in link it answers points at the main host's public URL.
    { table: 'readWrite', publicMainUrl: true },
    { timeoutSeconds: 10, memoryMb: 1024 },
  ),
  // Browser pages: no store key; the link token or the session cookie is the credential.
  // GET shows a Continue button (link scanners fetch links too); its POST uses the link up.
  {
    // Its POST checks Origin against the main host's public URL (shared/http/same-origin.ts), as sign-out does.
    ...route('oauth-callback', ['GET', 'main', '/oauth/callback'], { table: 'readWrite', publicMainUrl: true }),
    routes: [
      { host: 'main', method: 'GET', path: '/oauth/callback' },
      { host: 'main', method: 'POST', path: '/oauth/callback' },
    ],
  },
  route('back-office', ['GET', 'main', '/back-office'], { table: 'read' }),
  // The console: server-rendered pages behind the same session, one store the account may open at a time.
  route('console-store', ['GET', 'main', '/back-office/stores/{storeId}'], { table: 'read' }),
  route('console-flows', ['GET', 'main', '/back-office/stores/{storeId}/flows'], { table: 'read' }),
  route('console-flow', ['GET', 'main', '/back-office/stores/{storeId}/flows/{flowId}'], { table: 'read' }),
  route('console-contacts', ['GET', 'main', '/back-office/stores/{storeId}/contacts'], { table: 'read' }),
  route('console-webhooks', ['GET', 'main', '/back-office/stores/{storeId}/webhooks'], { table: 'read' }),
  route('console-imports', ['GET', 'main', '/back-office/stores/{storeId}/imports'], { table: 'read' }),
  route('console-sending', ['GET', 'main', '/back-office/stores/{storeId}/sending'], { table: 'read' }),
  route('console-batch', ['GET', 'main', '/back-office/stores/{storeId}/sending/{batchId}'], { table: 'read' }),
  // Segments and campaigns: the segments and campaigns APIs' reads.
  route('console-segments', ['GET', 'main', '/back-office/stores/{storeId}/segments'], { table: 'read' }),
  route('console-segment', ['GET', 'main', '/back-office/stores/{storeId}/segments/{segmentId}'], { table: 'read' }),
  route('console-campaigns', ['GET', 'main', '/back-office/stores/{storeId}/campaigns'], { table: 'read' }),
  route('console-campaign', ['GET', 'main', '/back-office/stores/{storeId}/campaigns/{campaignId}'], { table: 'read' }),
  {
    // Registering and checking a domain are the senders API's: the SES identity API.
    ...route('console-senders', ['GET', 'main', '/back-office/stores/{storeId}/senders'], {
      table: 'readWrite',
      sesIdentities: true,
      publicMainUrl: true,
    }),
    routes: [
      { host: 'main', method: 'GET', path: '/back-office/stores/{storeId}/senders' },
      { host: 'main', method: 'POST', path: '/back-office/stores/{storeId}/senders' },
    ],
  },
  route('console-webhooks-resend', ['POST', 'main', '/back-office/stores/{storeId}/webhooks/resend'], {
    table: 'readWrite',
    sendTo: ['webhooks'],
    publicMainUrl: true,
  }),
  {
    ...route('console-new-flow', ['GET', 'main', '/back-office/stores/{storeId}/new-flow'], {
      table: 'readWrite',
      publicMainUrl: true,
    }),
    routes: [
      { host: 'main', method: 'GET', path: '/back-office/stores/{storeId}/new-flow' },
      { host: 'main', method: 'POST', path: '/back-office/stores/{storeId}/new-flow' },
    ],
  },
  {
    ...route('console-step', ['GET', 'main', '/back-office/stores/{storeId}/flows/{flowId}/steps/{stepId}'], {
      table: 'readWrite',
      publicMainUrl: true,
    }),
    routes: [
      { host: 'main', method: 'GET', path: '/back-office/stores/{storeId}/flows/{flowId}/steps/{stepId}' },
      { host: 'main', method: 'POST', path: '/back-office/stores/{storeId}/flows/{flowId}/steps/{stepId}' },
    ],
  },
  {
    ...route('console-flow-settings', ['GET', 'main', '/back-office/stores/{storeId}/flows/{flowId}/settings'], {
      table: 'readWrite',
      publicMainUrl: true,
    }),
    routes: [
      { host: 'main', method: 'GET', path: '/back-office/stores/{storeId}/flows/{flowId}/settings' },
      { host: 'main', method: 'POST', path: '/back-office/stores/{storeId}/flows/{flowId}/settings' },
    ],
  },
  route('console-flow-state', ['POST', 'main', '/back-office/stores/{storeId}/flows/{flowId}/state'], {
    table: 'readWrite',
    publicMainUrl: true,
  }),
  // The campaign page's Cancel: the API's cancel (the campaign and the store's active count).
  route('console-campaign-cancel', ['POST', 'main', '/back-office/stores/{storeId}/campaigns/{campaignId}/cancel'], {
    table: 'readWrite',
    publicMainUrl: true,
  }),
  route('back-office-sign-out', ['POST', 'main', '/back-office/sign-out'], {
    table: 'readWrite',
    publicMainUrl: true,
  }),
  // Public and the same on every host: generated from this catalog on first request, touches nothing.
  {
    ...route('openapi-document', ['GET', 'main', '/api/v1/openapi.json'], { publicUrls: true }),
    routes: HOSTS.map((host) => ({ host, method: 'GET', path: '/api/v1/openapi.json' }) as const),
  },
]);
