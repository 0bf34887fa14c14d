/**
 * `npm start`: the whole service on this machine. State lives under `.local/` and survives a restart;
 * `npm start -- --reset` wipes it first. Ctrl-C stops everything cleanly.
 */
import { rmSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createStore, revealStoreKey } from '#shared/domain/stores/manage-stores.ts';
import { storeAdminDeps } from '#shared/wiring/store-admin.ts';
import { DEFAULT_PORTS, PORT_ENV, type PortName, startLocalRuntime } from './runtime.ts';
import { isRunning, LOCAL_DIR, readStackFile, STACK_FILE, writeStackFile } from './stack-file.ts';

const { values } = parseArgs({ options: { reset: { type: 'boolean', default: false } }, strict: true });

const previous = readStackFile();
if (previous && previous.pid !== process.pid && isRunning(previous)) {
  console.error(`The local stack is already running (pid ${previous.pid}): ${previous.mainUrl}`);
  process.exit(1);
}
if (values.reset) {
  rmSync(LOCAL_DIR, { recursive: true, force: true });
  console.log('Wiped .local/ (all local state).');
}

const ports = Object.fromEntries(
  (Object.keys(DEFAULT_PORTS) as PortName[]).map((name) => [
    name,
    Number(process.env[PORT_ENV[name]] ?? DEFAULT_PORTS[name]),
  ]),
) as Record<PortName, number>;

const runtime = await startLocalRuntime({
  dataDir: LOCAL_DIR,
  ports,
  logLevel: process.env.POWERTOOLS_LOG_LEVEL ?? 'INFO',
});

// The demo store: created on the first start, found again (its key decrypted) on every later one.
const admin = storeAdminDeps();
const known = values.reset ? undefined : readStackFile();
let demo = known ? { storeId: known.storeId, apiKey: await revealStoreKey(admin, known.storeId) } : undefined;
if (!demo?.apiKey) {
  const created = await createStore(admin, { name: 'Demo Store', type: 'direct' });
  demo = { storeId: created.store.storeId, apiKey: created.apiKey };
}

writeStackFile({
  mainUrl: runtime.urls.main,
  frontUrl: runtime.urls.front,
  sendingUrl: runtime.urls.sending,
  mailUrl: runtime.urls.mail,
  storeId: demo.storeId,
  apiKey: demo.apiKey ?? '',
  services: { dynamodb: runtime.urls.dynamodb, sqs: runtime.urls.sqs, emulators: runtime.urls.emulators },
  pid: process.pid,
});

console.log(`
Storeflow is running locally.

  Main API      ${runtime.urls.main}      (events, webhooks, OAuth, batch import)
  Front API     ${runtime.urls.front}      (headless events, contact export)
  Sending API   ${runtime.urls.sending}      (bulk email)
  Sent mail     ${runtime.urls.mail}      (web page; JSON at /store)

  Demo store    ${demo.storeId}
  API key       ${demo.apiKey}

  Try it:
    curl -s ${runtime.urls.main}/api/v1/events \\
      -H 'Content-Type: application/json' -H 'X-Service-Access-Token: ${demo.apiKey}' \\
      -d '{"endpoint":"customers/create","source_id":"demo-1","data":{"id":"c1","email":"ada@example.com","created_at":1700000000}}'

  Timers: POST ${runtime.urls.main}/_local/clock/advance {"seconds":3600} moves the clock one hour.
  Written to ${STACK_FILE}. State in .local/ survives restarts; \`npm start -- --reset\` wipes it. Ctrl-C stops.
`);

let stopping = false;
const shutdown = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  console.log(`\n${signal}: stopping…`);
  await runtime.stop();
  console.log('Stopped. State kept in .local/.');
  process.exit(0);
};
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
