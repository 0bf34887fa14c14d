/**
 * The admin command: `npm run admin -- store create --name "My Shop" [--type direct|platform]`,
 * `store rotate-key --store <storeId>`, `store list`.
 *
 * Target: a deployed stack when `TABLE_NAME` and `MASTER_KEY_SECRET_ID` are set (the Service stack's outputs
 * `TableName` and `MasterKeySecretArn`, with AWS credentials and region as usual); otherwise the local stack under
 * `.local/` (the running `npm start`, or the same state opened directly when it is not running).
 */
import { parseArgs } from 'node:util';
import { MASTER_KEY_SECRET_ID, REGION, startLocalRuntime, TABLE_NAME } from '../infra/local/runtime.ts';
import { isRunning, LOCAL_DIR, readStackFile } from '../infra/local/stack-file.ts';
import { storeAdminDeps } from '../shared/adapters/store-admin.ts';
import { ENV } from '../shared/config.ts';
import { createStore, rotateStoreKey } from '../shared/domain/stores/manage-stores.ts';
import { STORE_TYPES, type StoreType } from '../shared/domain/stores/store.ts';

const USAGE = `Usage:
  npm run admin -- store create --name <name> [--type direct|platform]
  npm run admin -- store rotate-key --store <storeId>
  npm run admin -- store list`;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    name: { type: 'string' },
    type: { type: 'string', default: 'direct' },
    store: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});

const fail = (message: string): never => {
  console.error(`${message}\n\n${USAGE}`);
  process.exit(2);
};

/** Points the adapters at the right stack; returns how to release it. */
const connect = async (): Promise<() => Promise<void>> => {
  if (process.env[ENV.tableName] && process.env[ENV.masterKeySecretId]) return async () => undefined;
  const running = readStackFile();
  if (running && isRunning(running)) {
    Object.assign(process.env, {
      AWS_REGION: REGION,
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_ENDPOINT_URL_DYNAMODB: running.services.dynamodb,
      AWS_ENDPOINT_URL_SECRETS_MANAGER: running.services.emulators,
      [ENV.tableName]: TABLE_NAME,
      [ENV.masterKeySecretId]: MASTER_KEY_SECRET_ID,
    });
    return async () => undefined;
  }
  const runtime = await startLocalRuntime({ dataDir: LOCAL_DIR, gateways: false, pollers: false });
  return runtime.stop;
};

const run = async () => {
  const [subject, action] = positionals;
  if (values.help || subject !== 'store' || !action) fail(values.help ? '' : 'Unknown command.');
  const release = await connect();
  try {
    const deps = storeAdminDeps();
    if (action === 'create') {
      const name = values.name ?? fail('--name is required');
      const type = values.type as StoreType;
      if (!STORE_TYPES.includes(type)) fail(`--type must be one of ${STORE_TYPES.join(', ')}`);
      const { store, apiKey } = await createStore(deps, { name, type });
      console.log(`Created store "${store.name}" (${store.type})\n  storeId  ${store.storeId}\n  API key  ${apiKey}`);
      console.log('The key is shown once; keep it secret. `store rotate-key` replaces it.');
    } else if (action === 'rotate-key') {
      const storeId = values.store ?? fail('--store is required');
      const { apiKey } = await rotateStoreKey(deps, storeId);
      console.log(`New API key for ${storeId}\n  API key  ${apiKey}\nThe previous key no longer works.`);
    } else if (action === 'list') {
      for (const store of await deps.stores.list()) {
        console.log(
          `${store.storeId}  ${store.type.padEnd(8)}  ${new Date(store.createdAt).toISOString()}  ${store.name}`,
        );
      }
    } else {
      fail(`Unknown action "${action}".`);
    }
  } finally {
    await release();
  }
};

run().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
