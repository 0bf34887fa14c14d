/**
 * `npm run admin -- account …` against a running local stack (the variables a deployment uses: `TABLE_NAME`,
 * `MASTER_KEY_SECRET_ID`, `AWS_ENDPOINT_URL_*`), and the accounts it makes signing in over HTTP.
 */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { requestLink, uniqueName } from '#test/support/oauth.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
let runtime: LocalRuntime;

beforeAll(async () => {
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

/** Runs `node scripts/admin.ts …args` with the runtime's environment; `stdin` is written to it, then closed. */
const admin = (args: string[], stdin = ''): Promise<Run> =>
  new Promise((done) => {
    const child = execFile(
      process.execPath,
      ['scripts/admin.ts', ...args],
      { cwd: ROOT, env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'ERROR' }, timeout: 30_000 },
      (error, stdout, stderr) => done({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin?.end(stdin);
  });

const field = (output: string, name: string): string => {
  const value = new RegExp(`^\\s*${name}\\s+(\\S+)$`, 'm').exec(output)?.[1];
  if (!value) throw new Error(`no ${name} in:\n${output}`);
  return value;
};

const ok = async (args: string[], stdin?: string): Promise<string> => {
  const run = await admin(args, stdin);
  if (run.code !== 0) throw new Error(`admin ${args.join(' ')} exited ${run.code}: ${run.stderr}`);
  return run.stdout;
};

/** Each run starts a Node process (about 2 s here), and a test makes up to a dozen. */
const GENEROUS = 180_000;

describe('npm run admin -- account', () => {
  it(
    'creates a main account with stores and sub-accounts that can then sign in',
    async () => {
      const mainId = field(await ok(['account', 'create-main', '--name', 'Admin Group']), 'mainAccountId');
      expect(mainId).toMatch(/^ma_[0-9A-Za-z]{20}$/);

      const created = await ok(['store', 'create', '--name', 'Owned Shop', '--account', mainId]);
      const storeId = field(created, 'storeId');
      const apiKey = field(created, 'API key');
      expect(field(created, 'owner')).toBe(mainId);
      // A store made before, linked afterwards.
      const later = await ok(['store', 'create', '--name', 'Linked Shop']);
      const laterId = field(later, 'storeId');
      const laterKey = field(later, 'API key');
      expect(await ok(['account', 'link-store', '--main', mainId, '--store', laterId])).toContain(
        `Store ${laterId} now belongs to main account ${mainId}`,
      );

      // A generated password, printed once.
      const alice = uniqueName('alice');
      const sub = await ok(['account', 'create-sub', '--main', mainId, '--username', alice]);
      expect(sub).toMatch(/^\s+stores\s+all stores of the main account$/m);
      const generated = field(sub, 'password');
      expect(generated).toMatch(/^[0-9A-Za-z]{24}$/);
      expect((await requestLink(runtime.urls.main, apiKey, { username: alice, password: generated })).status).toBe(200);
      expect((await requestLink(runtime.urls.main, laterKey, { username: alice, password: generated })).status).toBe(
        200,
      );

      // A password from stdin (the trailing newline of `echo` is not part of it), limited to one store.
      const bob = uniqueName('bob');
      const chosen = 'correct horse battery staple';
      const limited = await ok(
        ['account', 'create-sub', '--main', mainId, '--username', bob, '--password-stdin', '--stores', storeId],
        `${chosen}\n`,
      );
      expect(limited).not.toContain(chosen);
      expect(limited).not.toMatch(/password\s/);
      expect((await requestLink(runtime.urls.main, apiKey, { username: bob, password: chosen })).status).toBe(200);
      expect((await requestLink(runtime.urls.main, laterKey, { username: bob, password: chosen })).status).toBe(403);

      // set-password replaces it: the old one stops working.
      const reset = field(await ok(['account', 'set-password', '--username', bob]), 'password');
      expect((await requestLink(runtime.urls.main, apiKey, { username: bob, password: chosen })).status).toBe(401);
      expect((await requestLink(runtime.urls.main, apiKey, { username: bob, password: reset })).status).toBe(200);

      const listed = await ok(['account', 'list']);
      expect(listed).toMatch(new RegExp(`^${mainId}\\s+\\S+\\s+Admin Group$`, 'm'));
      expect(listed).toMatch(new RegExp(`^\\s+store\\s+${storeId}\\s+Owned Shop$`, 'm'));
      expect(listed).toMatch(new RegExp(`^\\s+store\\s+${laterId}\\s+Linked Shop$`, 'm'));
      expect(listed).toMatch(new RegExp(`^\\s+sub\\s+${alice}\\s+all stores$`, 'm'));
      expect(listed).toMatch(new RegExp(`^\\s+sub\\s+${bob}\\s+${storeId}$`, 'm'));
      expect(listed).not.toContain('scrypt');
    },
    GENEROUS,
  );

  it(
    'refuses what would break ownership or identity, exiting 1 with the reason',
    async () => {
      const first = field(await ok(['account', 'create-main', '--name', 'First']), 'mainAccountId');
      const second = field(await ok(['account', 'create-main', '--name', 'Second']), 'mainAccountId');
      const storeId = field(await ok(['store', 'create', '--name', 'Taken', '--account', first]), 'storeId');

      const steal = await admin(['account', 'link-store', '--main', second, '--store', storeId]);
      expect(steal.code).toBe(1);
      expect(steal.stderr).toContain(`Store ${storeId} belongs to another main account`);

      const foreign = await admin([
        'account',
        'create-sub',
        '--main',
        second,
        '--username',
        uniqueName('x'),
        '--stores',
        storeId,
      ]);
      expect(foreign.code).toBe(1);
      expect(foreign.stderr).toContain(`Not stores of main account ${second}: ${storeId}`);

      const username = uniqueName('dup');
      await ok(['account', 'create-sub', '--main', first, '--username', username]);
      const duplicate = await admin(['account', 'create-sub', '--main', second, '--username', username.toUpperCase()]);
      expect(duplicate.code).toBe(1);
      expect(duplicate.stderr).toContain(`The username ${username} is taken`);

      const short = await admin(
        ['account', 'create-sub', '--main', first, '--username', uniqueName('p'), '--password-stdin'],
        'short\n',
      );
      expect(short.code).toBe(1);
      expect(short.stderr).toContain('password must be at least 12 characters');

      const badName = await admin(['account', 'create-sub', '--main', first, '--username', 'no spaces allowed']);
      expect(badName.code).toBe(1);
      expect(badName.stderr).toContain('username must be 3 to 64 characters');

      const noMain = await admin(['store', 'create', '--name', 'Orphan', '--account', 'ma_doesnotexist']);
      expect(noMain.code).toBe(1);
      expect(noMain.stderr).toContain('No main account ma_doesnotexist');
    },
    GENEROUS,
  );

  it(
    'exits 2 with the usage when a required option is missing',
    async () => {
      const run = await admin(['account', 'create-sub', '--username', 'x']);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('--main is required');
      expect(run.stderr).toContain('account create-sub --main');
    },
    GENEROUS,
  );
});
