/**
 * The function catalog: every Lambda of the service, its entry file, its HTTP route(s) or queue, and the resources it
 * may touch. The CDK service stack and the local runtime both build from this one list, so what runs on a laptop cannot
 * drift from what is deployed. Pure data: no CDK or AWS SDK imports.
 */
import { HOSTS, type Host, type HttpMethod, type Route } from './hosts.ts';
import type { QueueName } from './queues.ts';

/** Where the export puts pages too large for one response, in the imports bucket (`Uses.exportPages`). */
export const EXPORT_PAGES_PREFIX = 'export-pages/';

/** What a function may touch. The CDK stack turns this into least-privilege grants and environment variables. */
export interface Uses {
  /** Table items: `read` (get, query), `readWrite` (and put, update, delete). Nobody scans the table. */
  readonly table?: 'read' | 'readWrite';
  /**
   * Adds to the store's per-second rate counters (`RATE#…` items) and writes nothing else: a route that only reads but
   * is rate limited per store gets UpdateItem on those keys alone (a leading-key condition), not the whole table.
   */
  readonly rateCounters?: boolean;
  /** Queues this function sends to. */
  readonly sendTo?: readonly QueueName[];
  /** Reads the service master key (decrypts store keys, e.g. for webhook signatures). */
  readonly masterKey?: boolean;
  /**
   * Creates and updates one-time schedules in the service's schedule group, targeting the `schedulerTarget` queue
   * (env `SCHEDULE_GROUP`, `SCHEDULER_ROLE_ARN`, `TIMERS_QUEUE_ARN`).
   */
  readonly scheduler?: boolean;
  /** The imports bucket (env `IMPORTS_BUCKET`): `write` to store files and sign upload URLs, `read` to stream them. */
  readonly importsBucket?: 'read' | 'write';
  /**
   * Puts export pages too large for one response under `export-pages/` in the imports bucket and signs a GET link to
   * each (env `IMPORTS_BUCKET`); the bucket deletes them after a day.
   */
  readonly exportPages?: boolean;
  /** Sends email through SES with the service's configuration set (env `SES_CONFIGURATION_SET`, `PUBLIC_SENDING_URL`). */
  readonly mailer?: boolean;
  /** Creates and reads SES email identities (sending domains with Easy DKIM). */
  readonly sesIdentities?: boolean;
  /** Knows the main host's public base URL (env `PUBLIC_MAIN_URL`: links to OAuth sign-in, the back office). */
  readonly publicMainUrl?: boolean;
  /** Knows every host's public base URL (env `PUBLIC_MAIN_URL`, `PUBLIC_FRONT_URL`, `PUBLIC_SENDING_URL`). */
  readonly publicUrls?: boolean;
}

/**
 * The areas of the service. Each deploys as a stack of its own (`Storeflow-<stage>-<Area>`), so that no stack nears
 * CloudFormation's 500-resource limit as areas grow; a new area (the console, segments, campaigns) is a new stack.
 */
export const AREAS = ['events', 'imports', 'webhooks', 'email', 'flows', 'accounts', 'segments'] as const;
export type Area = (typeof AREAS)[number];

interface FunctionBase {
  /** Kebab-case name; also the construct id stem and the local runtime's label. */
  readonly name: string;
  /** The area (and so the stack) the function belongs to. */
  readonly area: Area;
  /** Path of the module exporting `handler`, relative to the repository root. */
  readonly entry: string;
  readonly uses: Uses;
  readonly timeoutSeconds: number;
  readonly memoryMb: number;
}

export interface HttpFunction extends FunctionBase {
  readonly kind: 'http';
  readonly routes: readonly Route[];
}

export interface QueueFunction extends FunctionBase {
  readonly kind: 'queue';
  readonly queue: QueueName;
  /** Records per invocation (FIFO queues allow at most 10; a standard queue over 10 needs a batching window). */
  readonly batchSize: number;
  /**
   * How long Lambda gathers records before invoking with fewer than `batchSize` (its `MaximumBatchingWindowInSeconds`):
   * for workers where seconds do not matter, so the per-batch writes (counters) cover more records.
   */
  readonly batchingWindowSeconds?: number;
  /**
   * Most concurrent invocations the queue's event source mapping starts (Lambda's `MaximumConcurrency`, 2 to 1000), so
   * that a backlog in one queue cannot take the account's concurrency from the APIs. The sum over all consumers is in
   * docs/capacity.md.
   */
  readonly maxConcurrency: number;
}

export type FunctionSpec = HttpFunction | QueueFunction;

/** Lambda sizing: small for the API routes, more for the event path and the workers. */
const SMALL = { timeoutSeconds: 10, memoryMb: 256 } as const;
const EVENTS = { timeoutSeconds: 10, memoryMb: 512 } as const;

type Unplaced<T> = T extends unknown ? Omit<T, 'area'> : never;

/** One function per route (architecture §2); its handler is `functions/<name>/handler.ts`. */
const route = (
  name: string,
  [method, host, path]: readonly [HttpMethod, Host, string],
  uses: Uses,
  sizing: { timeoutSeconds: number; memoryMb: number } = SMALL,
): Unplaced<HttpFunction> => ({
  kind: 'http',
  name,
  entry: `functions/${name}/handler.ts`,
  routes: [{ host, method, path }],
  uses,
  ...sizing,
});

/** One function per queue consumer; its handler is `functions/<name>/handler.ts`. */
const consumer = (
  name: string,
  queue: QueueName,
  uses: Uses,
  sizing: {
    timeoutSeconds: number;
    memoryMb: number;
    batchSize: number;
    maxConcurrency: number;
    batchingWindowSeconds?: number;
  },
): Unplaced<QueueFunction> => ({ kind: 'queue', name, entry: `functions/${name}/handler.ts`, queue, uses, ...sizing });

/** Places functions in their area. */
const area = (name: Area, functions: readonly Unplaced<FunctionSpec>[]): FunctionSpec[] =>
  functions.map((f) => ({ ...f, area: name }) as FunctionSpec);

/** Webhook management routes rate-limit per store in the table, so each writes it. */
const WEBHOOK_ROUTE_USES: Uses = { table: 'readWrite' };
/** A rate-limited route that only reads: the rate counters are all it writes. */
const READ_ROUTE_USES: Uses = { table: 'read', rateCounters: true };

export const FUNCTIONS: readonly FunctionSpec[] = [
  // ── Events: the store events' path from the edge to the table, and the timers they set ──
  ...area('events', [
    route('events-ingest', ['POST', 'main', '/api/v1/events'], { table: 'readWrite', sendTo: ['ingest'] }, EVENTS),
    route(
      'headless-events',
      ['POST', 'front', '/api/v1/headless/events'],
      { table: 'readWrite', sendTo: ['ingest'] },
      EVENTS,
    ),
    // The CORS preflight of storefront pages posting with the publishable key: answers headers, touches nothing.
    route('headless-events-preflight', ['OPTIONS', 'front', '/api/v1/headless/events'], {}),
    // What became of one event (failed ones say why); reads, and its own rate counters.
    route('event-status', ['GET', 'main', '/api/v1/events'], READ_ROUTE_USES),
    route(
      'contacts-export',
      ['GET', 'front', '/api/v1/audience'],
      { table: 'readWrite', exportPages: true },
      { timeoutSeconds: 29, memoryMb: 1024 },
    ),
    // FIFO: at most one batch per message group in flight, so the groups (store + entity) bound the useful concurrency.
    consumer(
      'ingest-worker',
      'ingest',
      { table: 'readWrite', scheduler: true, sendTo: ['webhooks', 'flows'] },
      { timeoutSeconds: 30, memoryMb: 512, batchSize: 10, maxConcurrency: 20 },
    ),
    consumer(
      'timer-worker',
      'timers',
      // Flow waits go to the flows queue; contacts whose segment time window flipped to the segments queue.
      { table: 'readWrite', sendTo: ['flows', 'segments'] },
      { timeoutSeconds: 30, memoryMb: 512, batchSize: 10, maxConcurrency: 10 },
    ),
  ]),
  // ── Batch imports ──
  ...area('imports', [
    route(
      'batch-import',
      ['POST', 'main', '/api/v1/batch/customers'],
      { table: 'readWrite', importsBucket: 'write', sendTo: ['imports'] },
      { timeoutSeconds: 29, memoryMb: 1024 },
    ),
    route('batch-upload-url', ['POST', 'main', '/api/v1/batch/customers/uploads'], {
      table: 'readWrite',
      importsBucket: 'write',
    }),
    route('batch-upload-start', ['POST', 'main', '/api/v1/batch/customers/uploads/{jobId}/start'], {
      table: 'readWrite',
      importsBucket: 'read',
      sendTo: ['imports'],
    }),
    route('batch-job', ['GET', 'main', '/api/v1/batch/{jobId}'], { table: 'read' }),
    // Five minutes a run; an import that needs longer continues in a new message from where it stopped (it watches
    // its remaining time), so the timeout bounds only how long a crashed run holds its message.
    // Each contact written is evaluated against the store's segments: time-window re-evaluations go on the timer
    // wheel (its schedules); an import starts no flow, so no trigger is sent.
    consumer(
      'import-worker',
      'imports',
      { table: 'readWrite', importsBucket: 'read', sendTo: ['imports', 'webhooks'], scheduler: true },
      { timeoutSeconds: 300, memoryMb: 512, batchSize: 1, maxConcurrency: 5 },
    ),
  ]),
  // ── Webhooks: subscriptions and deliveries ──
  ...area('webhooks', [
    route('webhooks-create', ['POST', 'main', '/api/v1/webhooks'], WEBHOOK_ROUTE_USES),
    route('webhooks-update', ['PUT', 'main', '/api/v1/webhooks'], WEBHOOK_ROUTE_USES),
    route('webhooks-list', ['GET', 'main', '/api/v1/webhooks'], READ_ROUTE_USES),
    route('webhooks-count', ['GET', 'main', '/api/v1/webhooks/count'], READ_ROUTE_USES),
    route('webhooks-delete', ['DELETE', 'main', '/api/v1/webhooks/{webHookId}'], WEBHOOK_ROUTE_USES),
    route('webhook-deliveries', ['GET', 'main', '/api/v1/webhooks/{webHookId}/deliveries'], READ_ROUTE_USES),
    route('webhook-delivery-retry', ['POST', 'main', '/api/v1/webhooks/deliveries/{deliveryId}/retry'], {
      table: 'readWrite',
      sendTo: ['webhooks'],
    }),
    // Ten deliveries of up to 10 s each, sent one after another in the worst case, fit well within the timeout.
    consumer(
      'webhook-delivery-worker',
      'webhooks',
      { table: 'readWrite', masterKey: true },
      { timeoutSeconds: 110, memoryMb: 256, batchSize: 10, maxConcurrency: 20 },
    ),
  ]),
  // ── Email: senders, bulk sending, SES events, unsubscribe and suppression (issue 6) ──
  ...area('email', [
    // Sending domains (main host): management style, rate-limited per store in the table; SES identity calls but list.
    route('senders-create', ['POST', 'main', '/api/v1/senders'], { table: 'readWrite', sesIdentities: true }),
    route('senders-list', ['GET', 'main', '/api/v1/senders'], READ_ROUTE_USES),
    route('senders-get', ['GET', 'main', '/api/v1/senders/{domain}'], { table: 'readWrite', sesIdentities: true }),
    route('senders-delete', ['DELETE', 'main', '/api/v1/senders/{domain}'], {
      table: 'readWrite',
      sesIdentities: true,
    }),
    // 2,000 recipients: validation, a suppression read and ~80 batch writes; a pending from domain is re-read from SES.
    route(
      'sending-create',
      ['POST', 'sending', '/api/v1/sending'],
      { table: 'readWrite', sendTo: ['sends'], sesIdentities: true },
      { timeoutSeconds: 29, memoryMb: 1024 },
    ),
    route('sending-get', ['GET', 'sending', '/api/v1/sending/{id}'], READ_ROUTE_USES, {
      timeoutSeconds: 29,
      memoryMb: 512,
    }),
    // Five chunks of 50 in parallel; a chunk waits at most ~20 s for its send slots (else it is re-queued), so 60 s is
    // ample, and the chunk lease (90 s) stays under the queue's visibility timeout. Unsubscribe links are signed with
    // a key derived from the master key; re-queued chunks go back to `sends`. The SES rate, not concurrency, bounds it.
    consumer(
      'send-worker',
      'sends',
      { table: 'readWrite', sendTo: ['sends'], mailer: true, masterKey: true },
      { timeoutSeconds: 60, memoryMb: 512, batchSize: 5, maxConcurrency: 10 },
    ),
    // SES events, each a few reads and writes and at most a webhook to queue, handled side by side: 100 fit well within
    // 30 s. Nobody waits on them by the second, so Lambda gathers them for up to 2 s: a busy store's delivery, open and
    // click counters and its bounce guard are then written once per batch for up to 100 events (issue 16).
    // Opens, clicks and opt-outs also move the recipient's segments: segment flow triggers (flows queue) and
    // time-window re-evaluations (the timer wheel's schedules).
    consumer(
      'email-events-worker',
      'emailEvents',
      { table: 'readWrite', sendTo: ['webhooks', 'flows'], scheduler: true },
      { timeoutSeconds: 30, memoryMb: 256, batchSize: 100, maxConcurrency: 10, batchingWindowSeconds: 2 },
    ),
    // Public (the link in every email): the token is the credential. GET only shows a page, so it only reads.
    route('unsubscribe-page', ['GET', 'sending', '/unsubscribe/{token}'], { table: 'read', masterKey: true }),
    route('unsubscribe', ['POST', 'sending', '/unsubscribe/{token}'], {
      table: 'readWrite',
      masterKey: true,
      sendTo: ['webhooks'],
    }),
  ]),
  // ── Flows: definitions, presets, the engine, runs and explain (issue 4) ──
  ...area('flows', [
    // Like webhook management, the routes rate-limit per store in the table. `presets` is declared before `{flowId}`:
    // API Gateway prefers the literal path anyway; the local gateway takes the first match.
    route('flow-presets', ['GET', 'main', '/api/v1/flows/presets'], READ_ROUTE_USES),
    route('flows-create', ['POST', 'main', '/api/v1/flows'], { table: 'readWrite' }),
    route('flows-list', ['GET', 'main', '/api/v1/flows'], READ_ROUTE_USES),
    route('flows-get', ['GET', 'main', '/api/v1/flows/{flowId}'], READ_ROUTE_USES),
    route('flows-update', ['PUT', 'main', '/api/v1/flows/{flowId}'], { table: 'readWrite' }),
    route('flows-delete', ['DELETE', 'main', '/api/v1/flows/{flowId}'], { table: 'readWrite' }),
    // Ten messages, each a few reads and writes and at most one SES call, in parallel. The timeout stays well under
    // the engine's email-claim takeover (150 s), itself under the queue's visibility timeout.
    consumer(
      'flow-worker',
      'flows',
      { table: 'readWrite', sendTo: ['flows'], scheduler: true, mailer: true, masterKey: true },
      { timeoutSeconds: 60, memoryMb: 512, batchSize: 10, maxConcurrency: 20 },
    ),
    // Explain: reads, and the flows API's rate counters.
    route('flow-runs', ['GET', 'main', '/api/v1/flows/{flowId}/runs'], READ_ROUTE_USES),
    route('flow-activity', ['GET', 'main', '/api/v1/flow-activity'], READ_ROUTE_USES),
    // Attribution (docs/attribution.md): kept counters, read per day.
    route('stats', ['GET', 'main', '/api/v1/stats'], READ_ROUTE_USES),
    route('flow-stats', ['GET', 'main', '/api/v1/flows/{flowId}/stats'], READ_ROUTE_USES),
  ]),
  // ── Segments (issue 19): definitions, live counts, members; their builds and timed re-evaluations ──
  ...area('segments', [
    // Like flow management, the routes rate-limit per store in the table; create and edit queue a build.
    route('segments-create', ['POST', 'main', '/api/v1/segments'], { table: 'readWrite', sendTo: ['segments'] }),
    route('segments-list', ['GET', 'main', '/api/v1/segments'], READ_ROUTE_USES),
    route('segments-get', ['GET', 'main', '/api/v1/segments/{segmentId}'], READ_ROUTE_USES),
    route('segments-update', ['PUT', 'main', '/api/v1/segments/{segmentId}'], {
      table: 'readWrite',
      sendTo: ['segments'],
    }),
    route('segments-delete', ['DELETE', 'main', '/api/v1/segments/{segmentId}'], {
      table: 'readWrite',
      sendTo: ['segments'],
    }),
    route('segment-members', ['GET', 'main', '/api/v1/segments/{segmentId}/members'], READ_ROUTE_USES),
    // A build pass runs at most a minute (then queues its continuation), so two minutes bound a crashed one; ten
    // messages a batch: time-window re-evaluations are a few reads and writes each. Entries fire flow triggers and
    // re-evaluations are set on the timer wheel.
    consumer(
      'segment-worker',
      'segments',
      { table: 'readWrite', sendTo: ['segments', 'flows'], scheduler: true },
      { timeoutSeconds: 120, memoryMb: 512, batchSize: 10, maxConcurrency: 5 },
    ),
  ]),
  // ── Accounts: OAuth sign-in, the back office (issue 7), and the API description (issue 9) ──
  ...area('accounts', [
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
    // The console (issue 17): server-rendered pages behind the same session, one store the account may open at a time.
    route('console-store', ['GET', 'main', '/back-office/stores/{storeId}'], { table: 'read' }),
    route('console-flows', ['GET', 'main', '/back-office/stores/{storeId}/flows'], { table: 'read' }),
    route('console-flow', ['GET', 'main', '/back-office/stores/{storeId}/flows/{flowId}'], { table: 'read' }),
    route('console-contacts', ['GET', 'main', '/back-office/stores/{storeId}/contacts'], { table: 'read' }),
    route('console-webhooks', ['GET', 'main', '/back-office/stores/{storeId}/webhooks'], { table: 'read' }),
    route('console-imports', ['GET', 'main', '/back-office/stores/{storeId}/imports'], { table: 'read' }),
    route('console-sending', ['GET', 'main', '/back-office/stores/{storeId}/sending'], { table: 'read' }),
    route('console-batch', ['GET', 'main', '/back-office/stores/{storeId}/sending/{batchId}'], { table: 'read' }),
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
    route('back-office-sign-out', ['POST', 'main', '/back-office/sign-out'], {
      table: 'readWrite',
      publicMainUrl: true,
    }),
    // Public and the same on every host: generated from this catalog on first request, touches nothing.
    {
      ...route('openapi-document', ['GET', 'main', '/api/v1/openapi.json'], { publicUrls: true }),
      routes: HOSTS.map((host) => ({ host, method: 'GET', path: '/api/v1/openapi.json' }) as const),
    },
  ]),
];

export const httpFunctions = (): HttpFunction[] => FUNCTIONS.filter((f): f is HttpFunction => f.kind === 'http');
export const queueFunctions = (): QueueFunction[] => FUNCTIONS.filter((f): f is QueueFunction => f.kind === 'queue');
