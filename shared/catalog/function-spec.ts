/**
 * What the function catalog is made of: the shape of a function (its route or queue, what it may touch, its sizing),
 * the service's areas, and the helpers each area's list (`areas/*.ts`) is written with. Pure data: no CDK or AWS SDK
 * imports.
 */
import type { Host, HttpMethod, Route } from './hosts.ts';
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
  /** Replays the live timers without setting any (a flow backtest): reads their settings (env `CHECKOUT_RECOVERY_WAIT_MINUTES`). */
  readonly replaysTimers?: boolean;
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
export const AREAS = ['events', 'imports', 'webhooks', 'email', 'flows', 'accounts', 'segments', 'campaigns'] as const;
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
export const SMALL = { timeoutSeconds: 10, memoryMb: 256 } as const;
export const EVENTS = { timeoutSeconds: 10, memoryMb: 512 } as const;

export type Unplaced<T> = T extends unknown ? Omit<T, 'area'> : never;

/** One function per route (architecture §2); its handler is `functions/<name>/handler.ts`. */
export const route = (
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
export const consumer = (
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
export const area = (name: Area, functions: readonly Unplaced<FunctionSpec>[]): FunctionSpec[] =>
  functions.map((f) => ({ ...f, area: name }) as FunctionSpec);

/** Webhook management routes rate-limit per store in the table, so each writes it. */
export const WEBHOOK_ROUTE_USES: Uses = { table: 'readWrite' };
/** A rate-limited route that only reads: the rate counters are all it writes. */
export const READ_ROUTE_USES: Uses = { table: 'read', rateCounters: true };
