/**
 * One HTTP server for the in-repo AWS emulators of the local runtime: Secrets Manager (`POST /` with
 * `X-Amz-Target: secretsmanager.*`) and EventBridge Scheduler (`/schedules`, `/schedule-groups`). Handlers reach it
 * through `AWS_ENDPOINT_URL_SECRETS_MANAGER` and `AWS_ENDPOINT_URL_SCHEDULER`, both set to `url`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LocalClock } from '#local/clock.ts';
import { SchedulerEmulator } from './scheduler/emulator.ts';
import type { ScheduleRecord } from './scheduler/model.ts';
import { SecretsManagerEmulator } from './secrets-manager.ts';

/** Options of {@link startAwsEmulators}. */
export interface AwsEmulatorsOptions {
  /** Interface to listen on; 127.0.0.1 by default (never exposed beyond the machine). */
  host?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Where the scheduler persists its state; in memory only without it. */
  dataDir?: string;
  /** SQS endpoint (fauxqs) that schedules deliver to. */
  sqsEndpoint: string;
  /** Region of ARNs; `us-east-1` by default. */
  region?: string;
  /** What decides when schedules are due: the wall clock, or a `LocalClock` that tests move. */
  clock: Pick<LocalClock, 'now'>;
  /** Secret strings keyed by secret name or ARN. */
  secrets: Record<string, string>;
  /** Interval of the scheduler's firing loop in ms; 250 by default. */
  tickMs?: number;
}

/** A running emulator server. */
export interface AwsEmulators {
  /** Base URL, e.g. `http://127.0.0.1:40123`, for both `AWS_ENDPOINT_URL_*` variables. */
  url: string;
  port: number;
  scheduler: {
    /** Fires every due schedule now (e.g. right after the clock advanced); resolves to how many fired. */
    fireDue(): Promise<number>;
    /** Snapshot of all schedules. */
    list(): ScheduleRecord[];
  };
  /** Stops the firing loop and closes the server, including idle keep-alive connections. */
  stop(): Promise<void>;
}

/** Starts the Scheduler and Secrets Manager emulators on one HTTP server. */
export async function startAwsEmulators(options: AwsEmulatorsOptions): Promise<AwsEmulators> {
  const host = options.host ?? '127.0.0.1';
  const scheduler = new SchedulerEmulator({
    clock: options.clock,
    sqsEndpoint: options.sqsEndpoint,
    ...(options.region !== undefined && { region: options.region }),
    ...(options.dataDir !== undefined && { dataDir: options.dataDir }),
  });
  const secrets = new SecretsManagerEmulator(options.secrets, options.region);

  const server = createServer((req, res) => {
    serve(req, res).catch((error: unknown) => {
      console.error('[aws-emulators] request failed:', error);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ Message: 'Internal error in the local AWS emulator' }));
    });
  });

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://localhost');
    const target = req.headers['x-amz-target'];
    const reply =
      req.method === 'POST' &&
      url.pathname === '/' &&
      typeof target === 'string' &&
      target.startsWith('secretsmanager.')
        ? secrets.handle(target, body)
        : /^\/schedule(s|-groups)(\/|$)/.test(url.pathname)
          ? scheduler.handle(req.method ?? 'GET', url, body)
          : {
              status: 400,
              headers: { 'content-type': 'application/json', 'x-amzn-errortype': 'UnknownOperationException' },
              body: JSON.stringify({
                Message: `The local AWS emulators serve Scheduler and Secrets Manager only, not ${req.method} ${url.pathname} (target: ${target ?? 'none'})`,
              }),
            };
    res.writeHead(reply.status, reply.headers);
    res.end(reply.body);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  scheduler.start(options.tickMs);

  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    scheduler: {
      fireDue: () => scheduler.fireDue(),
      list: () => scheduler.list(),
    },
    async stop() {
      await scheduler.close();
      const closed = new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      );
      // SDK clients keep connections alive; without this, close() waits for them to time out.
      server.closeIdleConnections();
      await closed;
    },
  };
}
