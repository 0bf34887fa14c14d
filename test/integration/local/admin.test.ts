/**
 * The admin command (`npm run admin -- store …`) against a running local stack, pointed at it through the same
 * variables a deployment uses (`TABLE_NAME`, `MASTER_KEY_SECRET_ID`, `AWS_ENDPOINT_URL_*`).
 */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamo } from '#shared/adapters/aws-clients.ts';
import { batchPut } from '#shared/adapters/dynamodb/batch.ts';
import { dynamoContactCounts } from '#shared/adapters/dynamodb/contact-counts.ts';
import { dynamoContactSearchIndex } from '#shared/adapters/dynamodb/contact-search.ts';
import { customerItem, dynamoCustomerRepository } from '#shared/adapters/dynamodb/customer.repository.ts';
import { keys } from '#shared/adapters/dynamodb/keys.ts';
import { dynamoStoreRepository } from '#shared/adapters/dynamodb/store.repository.ts';
import { tableName } from '#shared/adapters/dynamodb/table.ts';
import { DeleteCommand } from '#shared/adapters/dynamodb-client.ts';
import { contact } from '#test/integration/export/support.ts';
import { postEvent } from '#test/support/local.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
let runtime: LocalRuntime;

beforeAll(async () => {
  // A rotated key must be refused at once, not after the warm function's cache expires.
  process.env.AUTH_CACHE_SECONDS = '0';
  runtime = await startLocalRuntime({ pollers: false });
});

afterAll(async () => {
  await runtime?.stop();
});

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `node scripts/admin.ts …args` with the runtime's environment (the variables it set for the handlers). */
const admin = (...args: string[]): Promise<Run> =>
  new Promise((done) => {
    execFile(
      process.execPath,
      ['scripts/admin.ts', ...args],
      { cwd: ROOT, env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'ERROR' }, timeout: 20_000 },
      (error, stdout, stderr) => done({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });

const field = (output: string, name: string): string => {
  const value = new RegExp(`^\\s*${name}\\s+(\\S+)$`, 'm').exec(output)?.[1];
  if (!value) throw new Error(`no ${name} in:\n${output}`);
  return value;
};

const customerEvent = (sourceId: string) => ({
  endpoint: 'customers/create',
  source_id: sourceId,
  data: { id: sourceId, email: `${sourceId}@example.com`, created_at: 1_700_000_000 },
});

// Each call starts a Node process (up to 20 s on a loaded machine); a test makes up to six, one after another.
describe('npm run admin -- store', { timeout: 120_000 }, () => {
  it('issues a publishable key for the given origins, keeps it when only they change, and refuses a bad origin', async () => {
    const storeId = field((await admin('store', 'create', '--name', 'Storefront')).stdout, 'storeId');
    const issued = await admin('store', 'publishable-key', '--store', storeId, '--origin', 'https://Shop.Example');
    expect(issued.code).toBe(0);
    const key = field(issued.stdout, 'key');
    expect(key).toMatch(/^pk_[0-9A-Za-z]{40}$/);
    expect(field(issued.stdout, 'origins')).toBe('https://shop.example');

    const again = await admin('store', 'publishable-key', '--store', storeId, '--origin', 'https://www.shop.example');
    expect(field(again.stdout, 'key')).toBe(key);
    const rotated = await admin('store', 'publishable-key', '--store', storeId, '--rotate');
    expect(field(rotated.stdout, 'key')).not.toBe(key);
    expect(field(rotated.stdout, 'origins')).toBe('https://www.shop.example');

    const bad = await admin('store', 'publishable-key', '--store', storeId, '--origin', 'https://shop.example/cart');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('An origin has no path, query or credentials');
    expect((await admin('store', 'publishable-key', '--store', 'st_missing')).code).toBe(1);
  });

  it('creates a store, lists it, and rotates its key so that only the new key authenticates', async () => {
    const created = await admin('store', 'create', '--name', 'Admin Shop');
    expect(created.code).toBe(0);
    const storeId = field(created.stdout, 'storeId');
    const oldKey = field(created.stdout, 'API key');
    expect(storeId).toMatch(/^st_/);
    expect(oldKey).toMatch(/^shop_[0-9A-Za-z]{32,}$/);
    expect((await postEvent(runtime.urls.main, oldKey, customerEvent('before-rotation'))).body).toEqual({
      code: 200,
      message: 'ok',
    });

    const listed = await admin('store', 'list');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`^${storeId}\\s+direct\\s+\\S+\\s+Admin Shop$`, 'm'));

    const rotated = await admin('store', 'rotate-key', '--store', storeId);
    expect(rotated.code).toBe(0);
    const newKey = field(rotated.stdout, 'API key');
    expect(newKey).toMatch(/^shop_/);
    expect(newKey).not.toBe(oldKey);

    const refused = await postEvent(runtime.urls.main, oldKey, customerEvent('after-rotation-old'));
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe(401);
    expect((await postEvent(runtime.urls.main, newKey, customerEvent('after-rotation-new'))).body).toEqual({
      code: 200,
      message: 'ok',
    });
  });

  it('creates a platform store when asked', async () => {
    const created = await admin('store', 'create', '--name', 'Platform Shop', '--type', 'platform');
    expect(created.code).toBe(0);
    expect(created.stdout).toContain('Created store "Platform Shop" (platform)');
  });

  it('exits 2 with the usage when a required option is missing or invalid', async () => {
    const noName = await admin('store', 'create');
    expect(noName.code).toBe(2);
    expect(noName.stderr).toContain('--name is required');
    expect(noName.stderr).toContain('Usage:');
    const badType = await admin('store', 'create', '--name', 'X', '--type', 'marketplace');
    expect(badType.code).toBe(2);
    expect(badType.stderr).toContain('--type must be one of direct, platform');
  });

  it('counts the contacts of a store again, so that its export uses the counters', async () => {
    const storeId = field((await admin('store', 'create', '--name', 'Recount Shop')).stdout, 'storeId');
    const repository = dynamoCustomerRepository();
    for (let i = 0; i < 3; i++) await repository.save(contact(storeId, 1_700_000_000 + i), 0);
    // As a store created before the counters existed: no state item.
    await dynamo().send(new DeleteCommand({ TableName: tableName(), Key: keys.contactCountState(storeId) }));
    expect(await dynamoContactCounts().exact(storeId)).toBe(false);

    const run = await admin('store', 'count-contacts', '--store', storeId);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`${storeId} has 3 contacts`);
    expect(await dynamoContactCounts().exact(storeId)).toBe(true);
    const total = (await dynamoContactCounts().buckets(storeId, 0, 0, 2_000_000_000)).reduce((n, b) => n + b.n, 0);
    expect(total).toBe(3);

    const unknown = await admin('store', 'count-contacts', '--store', 'st_doesnotexist');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('No store st_doesnotexist');
  });

  it('indexes the contacts of a store saved before the search, so the console finds them by phone and name', async () => {
    const storeId = field((await admin('store', 'create', '--name', 'Index Shop')).stdout, 'storeId');
    // Written as before the search existed: the contacts alone, without their lookup items.
    await batchPut([
      customerItem(
        contact(storeId, 1_700_000_000, { firstName: 'Grace', lastName: 'Hopper', phone: '+1 212 555 0100' }),
      ),
      customerItem(contact(storeId, 1_700_000_001, { firstName: 'Alan', lastName: 'Turing' })),
    ]);
    const index = dynamoContactSearchIndex();
    expect((await index.byNamePrefix(storeId, 'hop', { limit: 20 })).items).toEqual([]);

    const run = await admin('store', 'index-contacts', '--store', storeId);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`${storeId}: 2 contacts indexed`);
    expect((await index.byNamePrefix(storeId, 'hop', { limit: 20 })).items.map((c) => c.lastName)).toEqual(['Hopper']);
    expect((await index.byPhone(storeId, '+12125550100', { limit: 20 })).items.map((c) => c.lastName)).toEqual([
      'Hopper',
    ]);
    expect((await index.byNamePrefix(storeId, 'turing a', { limit: 20 })).items.map((c) => c.firstName)).toEqual([
      'Alan',
    ]);

    const unknown = await admin('store', 'index-contacts', '--store', 'st_doesnotexist');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('No store st_doesnotexist');
  });

  it("sets a store's influence window, refuses one out of range, and returns it to the default", async () => {
    const storeId = field((await admin('store', 'create', '--name', 'Window Shop')).stdout, 'storeId');
    const set = await admin('store', 'influence-window', '--store', storeId, '--days', '2');
    expect(set.code).toBe(0);
    expect(set.stdout).toContain('within 2 days of a click');
    expect((await dynamoStoreRepository().get(storeId))?.influenceWindowDays).toBe(2);
    const bad = await admin('store', 'influence-window', '--store', storeId, '--days', '31');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('from 1 to 30');
    expect((await admin('store', 'influence-window', '--store', storeId, '--days', 'default')).code).toBe(0);
    expect((await dynamoStoreRepository().get(storeId))?.influenceWindowDays).toBeUndefined();
  });

  it('exits 1 when rotating the key of a store that does not exist', async () => {
    const run = await admin('store', 'rotate-key', '--store', 'st_doesnotexist');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('No store st_doesnotexist');
  });
});
