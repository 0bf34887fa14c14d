/**
 * The admin command: `npm run admin -- store create --name "My Shop" [--type direct|platform] [--account <mainId>]`,
 * `store rotate-key --store <storeId>`, `store list`, and the back-office accounts (`account …`, see USAGE and
 * docs/oauth.md).
 *
 * Target: a deployed stack when `TABLE_NAME` and `MASTER_KEY_SECRET_ID` are set (the Service stack's outputs
 * `TableName` and `MasterKeySecretArn`, with AWS credentials and region as usual); otherwise the local stack under
 * `.local/` (the running `npm start`, or the same state opened directly when it is not running).
 */
import { parseArgs } from 'node:util';
import { startLocalRuntime } from '#local/runtime.ts';
import { isRunning, LOCAL_DIR, readStackFile, useRunningStack } from '#local/stack-file.ts';
import { DEFAULT_AUTH_CACHE_SECONDS, ENV } from '#shared/config.ts';
import {
  createMainAccount,
  createSubAccount,
  findMainAccount,
  linkStore,
  listAccounts,
  revokeSubAccountSessions,
  setSubAccountPassword,
} from '#shared/domain/accounts/manage-accounts.ts';
import { rollUpStoreStats } from '#shared/domain/attribution/attribute.ts';
import { DEFAULT_INFLUENCE_WINDOW_DAYS } from '#shared/domain/attribution/model.ts';
import { countStoreContacts } from '#shared/domain/contacts/contact-counts.ts';
import { indexStoreContacts } from '#shared/domain/contacts/contact-search.ts';
import { parseLinkHost } from '#shared/domain/events/public-links.ts';
import {
  createStore,
  issuePublishableKey,
  parseOrigin,
  rotateStoreKey,
  setStoreDailySendCap,
  setStoreInfluenceWindow,
} from '#shared/domain/stores/manage-stores.ts';
import { STORE_TYPES, type StoreType } from '#shared/domain/stores/model.ts';
import { accountAdminDeps } from '#shared/wiring/accounts.ts';
import { rollupDeps } from '#shared/wiring/attribution.ts';
import { indexContactsDeps, recountDeps } from '#shared/wiring/contacts.ts';
import { resumeSending } from '#shared/wiring/sending.ts';
import { storeAdminDeps } from '#shared/wiring/store-admin.ts';

const USAGE = `Usage:
  npm run admin -- store create --name <name> [--type direct|platform] [--account <mainAccountId>]
  npm run admin -- store rotate-key --store <storeId>
  npm run admin -- store resume-sending --store <storeId>
  npm run admin -- store publishable-key --store <storeId> [--origin <https://shop.example>]… [--link-host <cdn.shop.example>]… [--rotate]
  npm run admin -- store daily-send-cap --store <storeId> --cap <emails per UTC day, 0 for none | default>
  npm run admin -- store count-contacts --store <storeId>
  npm run admin -- store rollup-stats --store <storeId>
  npm run admin -- store index-contacts --store <storeId>
  npm run admin -- store influence-window --store <storeId> --days <1-30 | default>
  npm run admin -- store list
  npm run admin -- account create-main --name <name>
  npm run admin -- account link-store --main <mainAccountId> --store <storeId>
  npm run admin -- account create-sub --main <mainAccountId> --username <username> [--password-stdin] [--stores <storeId,…>]
  npm run admin -- account set-password --username <username> [--password-stdin]
  npm run admin -- account revoke-sessions --username <username>
  npm run admin -- account list`;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    name: { type: 'string' },
    type: { type: 'string', default: 'direct' },
    store: { type: 'string' },
    days: { type: 'string' },
    account: { type: 'string' },
    main: { type: 'string' },
    username: { type: 'string' },
    stores: { type: 'string' },
    'password-stdin': { type: 'boolean' },
    origin: { type: 'string', multiple: true },
    'link-host': { type: 'string', multiple: true },
    rotate: { type: 'boolean' },
    cap: { type: 'string' },
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
    useRunningStack(running);
    return async () => undefined;
  }
  const runtime = await startLocalRuntime({ dataDir: LOCAL_DIR, gateways: false, pollers: false });
  return runtime.stop;
};

const run = async () => {
  const [subject, action] = positionals;
  if (values.help || (subject !== 'store' && subject !== 'account') || !action) {
    fail(values.help ? '' : 'Unknown command.');
  }
  const password = values['password-stdin'] ? await passwordFromStdin() : undefined;
  const release = await connect();
  try {
    if (subject === 'account') {
      await runAccount(action as string, password);
      return;
    }
    const deps = storeAdminDeps();
    if (action === 'create') {
      const name = values.name ?? fail('--name is required');
      const type = values.type as StoreType;
      if (!STORE_TYPES.includes(type)) fail(`--type must be one of ${STORE_TYPES.join(', ')}`);
      const mainAccountId = values.account;
      if (mainAccountId !== undefined) await findMainAccount(accountAdminDeps(), mainAccountId);
      const { store, apiKey } = await createStore(deps, { name, type, ...(mainAccountId ? { mainAccountId } : {}) });
      console.log(`Created store "${store.name}" (${store.type})\n  storeId  ${store.storeId}\n  API key  ${apiKey}`);
      if (mainAccountId) console.log(`  owner    ${mainAccountId}`);
      console.log('The key is shown once; keep it secret. `store rotate-key` replaces it.');
    } else if (action === 'resume-sending') {
      const storeId = values.store ?? fail('--store is required');
      await resumeSending(storeId);
      console.log(
        `Marketing email of ${storeId} resumes: its bounce and complaint counts start afresh (functions see it within a minute).`,
      );
    } else if (action === 'rotate-key') {
      const storeId = values.store ?? fail('--store is required');
      const { apiKey } = await rotateStoreKey(deps, storeId);
      console.log(
        `New API key for ${storeId}\n  API key  ${apiKey}\n` +
          `The previous key stops working within ${DEFAULT_AUTH_CACHE_SECONDS} seconds (functions trust a verified key ` +
          'that long).',
      );
    } else if (action === 'publishable-key') {
      const storeId = values.store ?? fail('--store is required');
      const origins = values.origin?.map((origin) => {
        try {
          return parseOrigin(origin);
        } catch (error) {
          return fail((error as Error).message);
        }
      });
      const linkHosts = values['link-host']?.map((host) => {
        try {
          return parseLinkHost(host);
        } catch (error) {
          return fail((error as Error).message);
        }
      });
      const issued = await issuePublishableKey(deps, storeId, {
        ...(origins ? { origins } : {}),
        ...(linkHosts ? { linkHosts } : {}),
        rotate: values.rotate === true,
      });
      console.log(
        `Publishable key of ${storeId} (for storefront pages: it only posts headless events)\n` +
          `  key      ${issued.publishableKey}\n` +
          `  origins  ${issued.allowedOrigins.length > 0 ? issued.allowedOrigins.join(' ') : '(none: pages cannot use it yet; add --origin)'}\n` +
          `  links    ${[...issued.allowedOrigins.map((o) => new URL(o).hostname.replace(/^www\./, '')), ...issued.linkHosts].join(' ') || '(none)'} (and below: links and images sent with it must be on these hosts; add --link-host for a CDN)`,
      );
      if (values.rotate) {
        console.log(`The previous publishable key stops working within ${DEFAULT_AUTH_CACHE_SECONDS} seconds.`);
      }
    } else if (action === 'daily-send-cap') {
      const storeId = values.store ?? fail('--store is required');
      const text = values.cap ?? fail('--cap is required');
      const cap = text === 'default' ? undefined : Number(text);
      if (cap !== undefined && (!Number.isInteger(cap) || cap < 0)) fail('--cap must be a whole number, or default');
      await setStoreDailySendCap(deps, storeId, cap);
      console.log(
        cap === undefined
          ? `${storeId} sends under the deployment's daily cap again (storeDailySendCap).`
          : `${storeId} may send ${cap === 0 ? 'any number of' : cap} marketing emails per UTC day` +
              ' (functions see it within a minute).',
      );
    } else if (action === 'influence-window') {
      const storeId = values.store ?? fail('--store is required');
      const text = values.days ?? fail('--days is required');
      const days = text === 'default' ? undefined : Number(text);
      await setStoreInfluenceWindow(deps, storeId, days);
      console.log(
        `${storeId} counts an order as influenced within ${days ?? DEFAULT_INFLUENCE_WINDOW_DAYS} days of a click` +
          `${days === undefined ? ' (the default)' : ''}.`,
      );
    } else if (action === 'count-contacts') {
      const storeId = values.store ?? fail('--store is required');
      let shown = Date.now();
      const count = await countStoreContacts(recountDeps(), storeId, (read) => {
        if (Date.now() - shown < 5000) return;
        shown = Date.now();
        console.log(`  ${read} contacts read…`);
      });
      console.log(
        count === undefined
          ? `The contacts of ${storeId} kept changing while they were counted; its export stays on the slower way. ` +
              'Run this again when the store is quieter.'
          : `${storeId} has ${count} contacts; its export now finds any page through its counters.`,
      );
    } else if (action === 'rollup-stats') {
      const storeId = values.store ?? fail('--store is required');
      const { scopes, stepsMoved } = await rollUpStoreStats(rollupDeps(), storeId, (line) => console.log(`  ${line}`));
      console.log(
        `${storeId}: ${stepsMoved} email steps' counters moved to their flows; the month counters of ` +
          `${scopes.length} scopes rebuilt from their days; stats over more than 92 days now read months.`,
      );
    } else if (action === 'index-contacts') {
      const storeId = values.store ?? fail('--store is required');
      let shown = Date.now();
      const count = await indexStoreContacts(indexContactsDeps(), storeId, (read) => {
        if (Date.now() - shown < 5000) return;
        shown = Date.now();
        console.log(`  ${read} contacts indexed…`);
      });
      console.log(`${storeId}: ${count} contacts indexed; the console finds each by phone and name.`);
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

/** The whole of stdin, less one trailing newline (`echo "$PASSWORD" | …` adds one). */
async function passwordFromStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

const showPassword = (generated: string | undefined) => {
  if (generated === undefined) return;
  console.log(
    `  password  ${generated}\nThe password is shown once; keep it secret. \`account set-password\` replaces it.`,
  );
};

async function runAccount(action: string, password: string | undefined) {
  const deps = accountAdminDeps();
  if (action === 'create-main') {
    const name = values.name ?? fail('--name is required');
    const main = await createMainAccount(deps, { name });
    console.log(`Created main account "${main.name}"\n  mainAccountId  ${main.mainAccountId}`);
  } else if (action === 'link-store') {
    const mainAccountId = values.main ?? fail('--main is required');
    const storeId = values.store ?? fail('--store is required');
    await linkStore(deps, { mainAccountId, storeId });
    console.log(`Store ${storeId} now belongs to main account ${mainAccountId}`);
  } else if (action === 'create-sub') {
    const mainAccountId = values.main ?? fail('--main is required');
    const username = values.username ?? fail('--username is required');
    const stores = values.stores?.split(',');
    const { account, generatedPassword } = await createSubAccount(deps, {
      mainAccountId,
      username,
      ...(password === undefined ? {} : { password }),
      ...(stores === undefined ? {} : { stores }),
    });
    const access = account.stores === 'all' ? 'all stores of the main account' : account.stores.join(', ');
    console.log(
      `Created sub-account of ${account.mainAccountId}\n  username  ${account.username}\n  stores    ${access}`,
    );
    showPassword(generatedPassword);
  } else if (action === 'revoke-sessions') {
    const username = values.username ?? fail('--username is required');
    await revokeSubAccountSessions(deps, { username });
    console.log(`Every session and unused sign-in link of ${username.trim().toLowerCase()} has ended`);
  } else if (action === 'set-password') {
    const username = values.username ?? fail('--username is required');
    const { generatedPassword } = await setSubAccountPassword(deps, {
      username,
      ...(password === undefined ? {} : { password }),
    });
    console.log(`New password set for ${username.trim().toLowerCase()}`);
    showPassword(generatedPassword);
  } else if (action === 'list') {
    for (const { main, stores, subAccounts } of await listAccounts(deps)) {
      console.log(`${main.mainAccountId}  ${new Date(main.createdAt).toISOString()}  ${main.name}`);
      for (const store of stores) console.log(`  store  ${store.storeId}  ${store.name}`);
      for (const sub of subAccounts) {
        console.log(`  sub    ${sub.username}  ${sub.stores === 'all' ? 'all stores' : sub.stores.join(',')}`);
      }
    }
  } else {
    fail(`Unknown action "${action}".`);
  }
}

run().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
