/**
 * The local runtime in a process of its own, for the kill-restart suite (which kills it with SIGKILL): state under
 * `STRESS_DATA_DIR`, ports from the `STOREFLOW_*_PORT` variables (fixed, so a restart comes back on the same ones),
 * visibility timeouts from `STRESS_VISIBILITY_SECONDS` (ingest and webhook queues). Once started it prints one JSON line
 * on stdout: its URLs, queue URLs and the environment the handlers got (the test process points its own SDK clients
 * at the same emulators with it). SIGTERM stops it cleanly.
 */

import { DEFAULT_PORTS, PORT_ENV, type PortName, startLocalRuntime } from '#local/runtime.ts';
import { QUEUES } from '#shared/catalog/queues.ts';
import { ENV } from '#shared/config.ts';

const dataDir = process.env.STRESS_DATA_DIR;
if (!dataDir) throw new Error('STRESS_DATA_DIR is required');
const ports = Object.fromEntries(
  (Object.keys(DEFAULT_PORTS) as PortName[]).map((name) => [name, Number(process.env[PORT_ENV[name]] ?? 0)]),
) as Record<PortName, number>;
const visibility = Number(process.env.STRESS_VISIBILITY_SECONDS ?? 0);

const runtime = await startLocalRuntime({
  dataDir,
  ports,
  logLevel: process.env.POWERTOOLS_LOG_LEVEL ?? 'ERROR',
  ...(visibility > 0 ? { visibilityTimeoutSeconds: { ingest: visibility, webhooks: visibility } } : {}),
});

const named = new Set<string>([...Object.values(ENV), ...Object.values(QUEUES).map((q) => q.urlEnv)]);
const shared = (name: string) => name.startsWith('AWS_') || named.has(name);
process.stdout.write(
  `${JSON.stringify({
    pid: process.pid,
    urls: runtime.urls,
    queueUrls: runtime.queueUrls,
    dlqUrls: runtime.dlqUrls,
    env: Object.fromEntries(Object.entries(process.env).filter(([name]) => shared(name))),
  })}\n`,
);

process.once('SIGTERM', () => {
  void runtime.stop().then(() => process.exit(0));
});
