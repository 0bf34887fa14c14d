import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import type { EventLoopUtilization } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import sesLocalModule from 'aws-ses-v2-local';
import { startFauxqs } from 'fauxqs';
import { dynamoSentMessages } from '#shared/adapters/dynamodb/email.repositories.ts';
import { FUNCTIONS } from '#shared/catalog/functions.ts';
import { HOSTS, type Host } from '#shared/catalog/hosts.ts';
import { QUEUES, type QueueName, type QueueSpec } from '#shared/catalog/queues.ts';
import { readTimeFrom, systemClock } from '#shared/clock.ts';
import { ENV } from '#shared/config.ts';
import { resetProcessState } from '#shared/lazy.ts';
import { applyLogLevel } from '#shared/observability.ts';
import { LocalClock } from './clock.ts';
import { contractRecorder } from './contract-recorder.ts';
import { startLocalDynamo } from './emulators/dynamodb.ts';
import { inProcessDynamoClients, useLocalDynamo } from './emulators/dynamodb-transport.ts';
import { startAwsEmulators } from './emulators/server.ts';
import { deliverySimulator, emailEventSimulator, sqsEventPublisher } from './emulators/ses-events.ts';
import { type LocalIdentityStatus, type SentListener, startSesProxy } from './emulators/ses-proxy.ts';
import { type Gateway, type GatewayRoute, type HttpLambda, type LocalRouteHandler, startGateway } from './gateway.ts';
import { lambdaContext } from './lambda-context.ts';
import { leanClients } from './lean-clients.ts';
import { localRouter } from './local-routes.ts';
import { type Poller, pollerClient, type QueueLambda, startPoller } from './poller.ts';
import {
  closeServer,
  ensureQueues,
  ensureTable,
  IMPORTS_BUCKET,
  MASTER_KEY_SECRET_ID,
  masterSecret,
  REGION,
  TABLE_NAME,
} from './resources.ts';

// aws-ses-v2-local is CommonJS with `exports.default`: under Node's ESM that default sits one level down, while loaders
// that apply CJS default interop (vitest) hand over the function itself.
const sesExports = sesLocalModule as typeof sesLocalModule | typeof sesLocalModule.default;
const startSesLocal = typeof sesExports === 'function' ? sesExports : sesExports.default;

const ROOT = resolve(import.meta.dirname, '..');

/** Default ports of `npm start` (documented in the README); each overridable by its environment variable. */
export const DEFAULT_PORTS = {
  main: 3000,
  front: 3001,
  sending: 3002,
  mail: 8005,
  dynamodb: 4567,
  sqs: 4566,
  emulators: 4568,
} as const;
export type PortName = keyof typeof DEFAULT_PORTS;
export const PORT_ENV: Record<PortName, string> = {
  main: 'STOREFLOW_MAIN_PORT',
  front: 'STOREFLOW_FRONT_PORT',
  sending: 'STOREFLOW_SENDING_PORT',
  mail: 'STOREFLOW_MAIL_PORT',
  dynamodb: 'STOREFLOW_DYNAMODB_PORT',
  sqs: 'STOREFLOW_SQS_PORT',
  emulators: 'STOREFLOW_EMULATORS_PORT',
};

export interface LocalRuntimeOptions {
  /** State directory (`.local/`); in memory when absent. */
  readonly dataDir?: string;
  /** Ports; 0 (the default) picks free ones. */
  readonly ports?: Partial<Record<PortName, number>>;
  /** Start the HTTP gateways (default true); the admin command needs only the services. */
  readonly gateways?: boolean;
  /** Start the queue pollers (default true). */
  readonly pollers?: boolean;
  /**
   * Batches each queue's consumer handles at once (default 2), within its catalog `maxConcurrency`: deployed, Lambda
   * runs up to that many; the noisy-neighbour bench runs more than the default so one slow batch does not hold a queue.
   * `'catalog'`: each consumer its catalog `maxConcurrency`, as deployed (the worker and flows benches' drains).
   */
  readonly pollerConcurrency?: number | 'catalog';
  /** Powertools log level for the handlers (default WARN: the runtime prints its own summary). */
  readonly logLevel?: string;
  /**
   * Visibility timeouts (seconds) instead of the catalog's, per queue: the kill-restart test shortens how long work in
   * flight at a crash stays invisible. Give the same values at every start on one state directory (SQS refuses to
   * re-create a queue with different attributes).
   */
  readonly visibilityTimeoutSeconds?: Partial<Record<QueueName, number>>;
  /**
   * Publish a Delivery event for every mail SES accepts (default true). The campaign bench turns it off: deployed, the
   * email-events worker runs on Lambdas of its own, while here it would share the send path's two cores (docs/campaigns.md).
   */
  readonly simulateDeliveries?: boolean;
}

export interface LocalRuntime {
  readonly urls: Record<Host, string> & { mail: string; dynamodb: string; sqs: string; emulators: string };
  readonly clock: LocalClock;
  readonly queueUrls: Record<QueueName, string>;
  readonly dlqUrls: Record<QueueName, string>;
  /**
   * Makes `seconds` pass for the whole process (handlers, timers, simulated SES events) and fires the timers that
   * became due; `offsetSeconds` is the total advanced so far.
   */
  advanceClock(seconds: number): Promise<{ offsetSeconds: number; fired: number }>;
  /** DynamoDB operations served so far, by operation name (`PutItem`, `UpdateItem`, …). */
  dynamodbCalls(): Record<string, number>;
  /** The local DynamoDB thread's event loop utilization so far (diff two with `performance.eventLoopUtilization`). */
  dynamodbUtilization(): EventLoopUtilization;
  /** SES operations served so far, by operation name (`SendBulkEmail`, `SendEmail`, `CreateEmailIdentity`, …). */
  sesCalls(): Record<string, number>;
  /**
   * Handler invocations so far, by catalog function name: how many, and their summed wall time in ms (what Lambda
   * would bill, give or take: here the emulators share the process, so it is an upper bound under load).
   */
  invocations(): Record<string, { count: number; ms: number }>;
  /**
   * The local SES front (`local/emulators/ses-proxy.ts`): `onSent(listener)` is called after every successful
   * SendEmail / SendBulkEmail with the mails SES accepted; it returns an unsubscribe function. `setIdentityStatus`
   * makes an identity report `pending` or `failed` instead of the local default, `verified` (a test aid).
   */
  readonly ses: {
    onSent(listener: SentListener): () => void;
    setIdentityStatus(identity: string, status: LocalIdentityStatus): void;
  };
  /** Pauses or resumes every queue poller (benchmarks isolate the API path with it). */
  setPollersPaused(paused: boolean): void;
  stop(): Promise<void>;
}

/**
 * A catalog function's handler, loaded at its first invocation, as Lambda loads a function's code at its cold start: a
 * start imports none of the 84 functions, so each of the 74 test files that start a runtime pays only for those it
 * calls. Measured on 27 November: a test process's first start took 2.4–3.9 s, 1.4 s of it importing the HTTP
 * handlers, while a second start in the same process (modules loaded) took 0.4–0.7 s. The import runs outside any
 * recording scope, as it did at start. `wrap` (the invocation tally) sees the handler's calls only, not its import.
 * Under the contract recorder (`STOREFLOW_CONTRACT_DIR`), each invocation runs in the function's recording scope.
 */
const handlerOf = <T extends (...args: never[]) => Promise<unknown>>(
  fn: { entry: string; name: string },
  wrap: (handler: T) => T,
): T => {
  const load = async () => {
    const handler = await loadHandler<T>(fn.entry);
    const recorder = contractRecorder();
    if (!recorder) return wrap(handler);
    return wrap(((...args: Parameters<T>) => recorder.run(fn.name, () => handler(...args))) as unknown as T);
  };
  let loaded: Promise<T> | undefined;
  return (async (...args: Parameters<T>) => {
    loaded ??= load();
    return (await loaded)(...args);
  }) as unknown as T;
};

const loadHandler = async <T>(entry: string): Promise<T> => {
  const module = (await import(pathToFileURL(join(ROOT, entry)).href)) as { handler?: T };
  if (!module.handler) throw new Error(`${entry} exports no handler`);
  return module.handler;
};

export const startLocalRuntime = async (options: LocalRuntimeOptions = {}): Promise<LocalRuntime> => {
  const { dataDir } = options;
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const port = (name: PortName) => options.ports?.[name] ?? 0;
  const stops: (() => Promise<unknown>)[] = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  };

  // What an earlier runtime of this process built from its environment (clients on its ports, the parsed settings, the
  // master key) is forgotten: a test worker starts one runtime per file, each with new emulators.
  resetProcessState();
  // The emulators check no signature and read no user agent: the process's clients skip both (local/lean-clients.ts).
  const unobserve = [leanClients(), inProcessDynamoClients()];
  stops.push(async () => {
    for (const stop of unobserve) stop();
  });
  try {
    // DynamoDB (dynalite, on a thread of its own): on disk under the state directory, else in memory. Its operation
    // counts (e.g. `PutItem`) are read by the benchmarks to report writes per accepted event.
    const dynamo = await startLocalDynamo({
      port: port('dynamodb'),
      ...(dataDir ? { path: join(dataDir, 'dynamodb') } : {}),
    });
    stops.push(() => dynamo.stop());
    // This process's DynamoDB clients call the thread without a socket (dynamodb-transport.ts).
    useLocalDynamo(dynamo);
    stops.push(async () => useLocalDynamo(undefined));
    const dynamoPort = dynamo.port;
    // Handler invocations and their wall time, read by the cost model of the benchmarks.
    const invocations = new Map<string, { count: number; ms: number }>();
    const timed = <T extends (...args: never[]) => Promise<unknown>>(name: string, handler: T): T =>
      (async (...args: Parameters<T>) => {
        const started = performance.now();
        try {
          return await handler(...args);
        } finally {
          const tally = invocations.get(name) ?? { count: 0, ms: 0 };
          tally.count += 1;
          tally.ms += performance.now() - started;
          invocations.set(name, tally);
        }
      }) as unknown as T;
    const dynamodbUrl = `http://127.0.0.1:${dynamoPort}`;

    // SQS, SNS and S3 (fauxqs), persisted in SQLite under the state directory.
    const fauxqs = await startFauxqs({
      port: port('sqs'),
      host: '127.0.0.1',
      logger: false,
      defaultRegion: REGION,
      ...(dataDir ? { dataDir: join(dataDir, 'fauxqs') } : {}),
    });
    stops.push(() => fauxqs.stop());
    const sqsUrl = `http://127.0.0.1:${fauxqs.port}`;

    // SESv2 (aws-ses-v2-local): its web page lists every sent mail, `/store` returns them as JSON.
    const mailServer = await startSesLocal({ host: '127.0.0.1', port: port('mail') });
    stops.push(() => closeServer(mailServer));
    const mailUrl = `http://127.0.0.1:${(mailServer.address() as AddressInfo).port}`;
    // The SESv2 endpoint handlers use: answers the identity API (which aws-ses-v2-local lacks), forwards the rest.
    const sesProxy = await startSesProxy({ upstream: mailUrl, ...(dataDir ? { dataDir } : {}) });
    stops.push(() => sesProxy.stop());

    // Scheduler and Secrets Manager (in repo). One clock for the process: the wall clock plus the time advanced so far
    // by /_local/clock/advance (kept across restarts); the handlers, the Scheduler and the simulated SES events all
    // read it, so an advanced week is a week for stats, timelines, segments and timers alike.
    const clock = new LocalClock(dataDir ? { file: join(dataDir, 'clock.json') } : {});
    readTimeFrom(() => clock.now());
    const emulators = await startAwsEmulators({
      port: port('emulators'),
      sqsEndpoint: sqsUrl,
      region: REGION,
      clock,
      secrets: { [MASTER_KEY_SECRET_ID]: masterSecret(dataDir) },
      ...(dataDir ? { dataDir: join(dataDir, 'scheduler') } : {}),
    });
    stops.push(() => emulators.stop());

    // The handlers' environment: the same variable names CDK sets, pointing at the emulators.
    Object.assign(process.env, {
      AWS_REGION: REGION,
      AWS_DEFAULT_REGION: REGION,
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_ENDPOINT_URL_DYNAMODB: dynamodbUrl,
      AWS_ENDPOINT_URL_SQS: sqsUrl,
      AWS_ENDPOINT_URL_SNS: sqsUrl,
      AWS_ENDPOINT_URL_S3: sqsUrl,
      AWS_ENDPOINT_URL_SESV2: sesProxy.url,
      AWS_ENDPOINT_URL_SCHEDULER: emulators.url,
      AWS_ENDPOINT_URL_SECRETS_MANAGER: emulators.url,
      POWERTOOLS_SERVICE_NAME: 'storeflow',
      POWERTOOLS_LOG_LEVEL: options.logLevel ?? process.env.POWERTOOLS_LOG_LEVEL ?? 'WARN',
      POWERTOOLS_DEV: 'true',
      [ENV.stage]: 'local',
      [ENV.tableName]: TABLE_NAME,
      [ENV.masterKeySecretId]: MASTER_KEY_SECRET_ID,
      [ENV.importsBucket]: IMPORTS_BUCKET,
      // fauxqs serves S3 on an IP address, where virtual-hosted bucket names cannot resolve.
      [ENV.s3ForcePathStyle]: 'true',
      // A developer receives webhooks on the laptop (http://127.0.0.1:…); deployed stages never allow this.
      [ENV.webhookAllowPrivateUrls]: process.env[ENV.webhookAllowPrivateUrls] ?? 'true',
      // The local SES has no sending quota: bulk sends are paced at a rate that keeps a laptop responsive.
      [ENV.sesSendRatePerSecond]: process.env[ENV.sesSendRatePerSecond] ?? '500',
    });
    // The handlers' logger was made when their modules were imported, before this environment: it takes the level now.
    applyLogLevel(process.env.POWERTOOLS_LOG_LEVEL as Parameters<typeof applyLogLevel>[0]);

    const clientConfig = { region: REGION, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };
    const dynamoAdmin = new DynamoDBClient({ ...clientConfig, endpoint: dynamodbUrl });
    await ensureTable(dynamoAdmin);
    dynamoAdmin.destroy();
    const sqsAdmin = new SQSClient({ ...clientConfig, endpoint: sqsUrl });
    const queues = await ensureQueues(sqsAdmin, sqsUrl, options.visibilityTimeoutSeconds);
    sqsAdmin.destroy();
    // The pollers' and the SES events' client (they receive, delete and send every message in this process).
    const sqs = pollerClient(sqsUrl);
    stops.push(async () => sqs.destroy());
    fauxqs.createBucket(IMPORTS_BUCKET);
    for (const [name, spec] of Object.entries(QUEUES) as [QueueName, QueueSpec][]) {
      process.env[spec.urlEnv] = queues.urls[name];
      // The Scheduler emulator delivers timers by queue ARN; the role is accepted and not checked, as locally nothing is.
      if (spec.schedulerTarget) {
        process.env[ENV.timersQueueArn] = queues.arns[name];
        process.env[ENV.schedulerRoleArn] = 'arn:aws:iam::000000000000:role/storeflow-local-scheduler';
        process.env[ENV.timersDlqArn] = queues.dlqArns[name];
      }
    }

    // SES event publishing's stand-in: a Delivery event per mail SES accepts, and simulated ones on request.
    const emailEvents = sqsEventPublisher(sqs, queues.urls.emailEvents, systemClock.now);
    if (options.simulateDeliveries !== false) {
      const stopDeliveries = sesProxy.onSent(deliverySimulator(emailEvents, systemClock.now));
      stops.push(async () => stopDeliveries());
    }

    const advanceClock = async (seconds: number) => {
      clock.advance(seconds);
      const fired = await emulators.scheduler.fireDue();
      return { offsetSeconds: clock.offsetMs / 1000, fired };
    };

    // Gateways: one per host, each with the catalog's routes for it.
    const urls = { main: '', front: '', sending: '' } as Record<Host, string>;
    if (options.gateways !== false) {
      const local: LocalRouteHandler = localRouter({
        'POST /_local/clock/advance': async ({ seconds }) =>
          typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0
            ? { status: 400, body: { message: 'seconds must be a non-negative number' } }
            : { status: 200, body: await advanceClock(seconds) },
        'POST /_local/email-events': emailEventSimulator(emailEvents, dynamoSentMessages),
      });
      for (const host of HOSTS) {
        const routes: GatewayRoute[] = [];
        for (const fn of FUNCTIONS) {
          if (fn.kind !== 'http') continue;
          for (const route of fn.routes) {
            if (route.host !== host) continue;
            routes.push({
              method: route.method,
              path: route.path,
              invoke: handlerOf<HttpLambda>(fn, (handler) => timed(fn.name, handler)),
              context: () => lambdaContext(fn.name, fn.timeoutSeconds),
            });
          }
        }
        const gateway: Gateway = await startGateway({
          host,
          port: port(host),
          routes,
          ...(host === 'main' ? { local } : {}),
          onError: (error) => console.error(`[gateway ${host}]`, error),
        });
        stops.push(() => gateway.close());
        urls[host] = gateway.url;
      }
      // Links in emails (unsubscribe) and OAuth sign-in links point at these hosts. Handlers read configuration on
      // first use, i.e. on the first request, after this.
      process.env[ENV.publicMainUrl] = urls.main;
      process.env[ENV.publicSendingUrl] = urls.sending;
      process.env[ENV.publicFrontUrl] = urls.front;
    }

    // Pollers: one per queue function, like Lambda's event source mappings.
    const pollers: Poller[] = [];
    if (options.pollers !== false) {
      for (const fn of FUNCTIONS) {
        if (fn.kind !== 'queue') continue;
        const poller = startPoller({
          sqs,
          queueUrl: queues.urls[fn.queue],
          queueArn: queues.arns[fn.queue],
          batchSize: fn.batchSize,
          ...(fn.batchingWindowSeconds ? { batchingWindowSeconds: fn.batchingWindowSeconds } : {}),
          concurrency:
            options.pollerConcurrency === 'catalog'
              ? fn.maxConcurrency
              : Math.min(fn.maxConcurrency, options.pollerConcurrency ?? 2),
          invoke: handlerOf<QueueLambda>(fn, (handler) => timed(fn.name, handler)),
          context: () => lambdaContext(fn.name, fn.timeoutSeconds),
          onError: (error) => console.error(`[poller ${fn.name}]`, error),
        });
        pollers.push(poller);
        stops.push(() => poller.stop());
      }
    }

    return {
      urls: { ...urls, mail: mailUrl, dynamodb: dynamodbUrl, sqs: sqsUrl, emulators: emulators.url },
      clock,
      queueUrls: queues.urls,
      dlqUrls: queues.dlqs,
      advanceClock,
      dynamodbCalls: () => dynamo.calls(),
      dynamodbUtilization: () => dynamo.utilization(),
      sesCalls: () => sesProxy.calls(),
      invocations: () => Object.fromEntries([...invocations].map(([name, tally]) => [name, { ...tally }])),
      ses: {
        onSent: (listener) => sesProxy.onSent(listener),
        setIdentityStatus: (identity, status) => sesProxy.setIdentityStatus(identity, status),
      },
      setPollersPaused: (paused) => {
        for (const poller of pollers) (paused ? poller.pause : poller.resume)();
      },
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
};
