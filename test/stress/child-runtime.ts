/**
 * The local runtime in a child process (`runtime-process.ts`) that a stress test can SIGKILL and start again on the
 * same state and ports: what the kill-restart tests share.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createTcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DEFAULT_PORTS, PORT_ENV, type PortName } from '#local/runtime.ts';

const ROOT = resolve(import.meta.dirname, '../..');

export interface ChildInfo {
  readonly pid: number;
  readonly urls: { main: string; front: string };
  readonly queueUrls: Record<string, string>;
  readonly dlqUrls: Record<string, string>;
  readonly env: Record<string, string>;
}

/**
 * Ports free right now (the runtime binds them itself; a restart must come back on the same ones). Chosen below Linux's
 * ephemeral range (32768+): a port the OS handed out with `listen(0)` can be handed out again, to an outgoing
 * connection or another server, before the child binds it. All are held until every one is chosen, so none repeats.
 */
const freePorts = async (): Promise<Record<PortName, number>> => {
  const out = {} as Record<PortName, number>;
  const held: ReturnType<typeof createTcpServer>[] = [];
  const tryBind = (port: number) =>
    new Promise<boolean>((done) => {
      const server = createTcpServer();
      server.once('error', () => done(false));
      server.listen(port, '127.0.0.1', () => {
        held.push(server);
        done(true);
      });
    });
  for (const name of Object.keys(DEFAULT_PORTS) as PortName[]) {
    let port = 0;
    do port = 20_000 + Math.floor(Math.random() * 12_000);
    while (!(await tryBind(port)));
    out[name] = port;
  }
  await Promise.all(held.map((server) => new Promise<void>((done) => server.close(() => done()))));
  return out;
};

/**
 * A child runtime on a state directory and ports of its own; `env` is added to the child's environment (e.g.
 * `STRESS_VISIBILITY_SECONDS`, webhook backoff). `start` resolves once it printed its URLs; `kill` waits for its exit.
 */
export const childRuntime = async (env: Record<string, string>) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'storeflow-kill-'));
  const ports = await freePorts();
  let child: ChildProcess | undefined;
  let log = '';
  return {
    log: () => log,
    async start(): Promise<ChildInfo> {
      const childEnv: Record<string, string> = {
        ...(process.env as Record<string, string>),
        STRESS_DATA_DIR: dataDir,
        POWERTOOLS_LOG_LEVEL: 'ERROR',
        ...env,
      };
      for (const name of Object.keys(ports) as PortName[]) childEnv[PORT_ENV[name]] = String(ports[name]);
      const started = spawn(process.execPath, [join(ROOT, 'test/stress/runtime-process.ts')], {
        cwd: ROOT,
        env: childEnv,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child = started;
      started.stderr?.setEncoding('utf8').on('data', (text: string) => {
        log = (log + text).slice(-20_000);
      });
      return new Promise((done, fail) => {
        let line = '';
        started.stdout?.setEncoding('utf8').on('data', (text: string) => {
          line += text;
          const end = line.indexOf('\n');
          if (end >= 0) done(JSON.parse(line.slice(0, end)) as ChildInfo);
        });
        started.once('exit', (code) =>
          fail(new Error(`the runtime process exited (${code}) before it was ready:\n${log}`)),
        );
      });
    },
    async kill(signal: NodeJS.Signals): Promise<void> {
      const running = child;
      if (!running || running.exitCode !== null || running.signalCode !== null) return;
      const exited = new Promise<void>((done) => running.once('exit', () => done()));
      running.kill(signal);
      await exited;
    },
    /** Stops the child (SIGTERM) and removes its state. */
    async dispose(): Promise<void> {
      await this.kill('SIGTERM');
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
};
