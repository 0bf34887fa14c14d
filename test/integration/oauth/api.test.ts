/**
 * `POST {base_url}/api/v1/oauth` over HTTP on the local runtime (spec "OAuth sign-in", "Authentication" rule 4): the
 * success shape, the documented errors in the same `{message, state, success, timestamp}` shape, and the lockout.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamoAccountRepository, dynamoSignInThrottle } from '#shared/adapters/dynamodb/account.repositories.ts';
import { hashPassword, needsRehash } from '#shared/domain/accounts/password.ts';
import { STORE_LOCKOUT } from '#shared/domain/accounts/sign-in.ts';
import { LIMITS } from '#shared/limits.ts';
import {
  type Answer,
  moveClock,
  newSubAccount,
  newTenant,
  PASSWORD,
  primary,
  requestLink,
  restoreClock,
  type Tenant,
  uniqueName,
} from '#test/support/oauth.ts';

/** Each sign-in costs a scrypt hash; the machine may be shared: generous, never a timing assertion. */
const SLOW_MACHINE = { timeout: 120_000 };

let runtime: LocalRuntime;
let tenant: Tenant;
let other: Tenant;

beforeAll(async () => {
  runtime = await startLocalRuntime({ pollers: false });
  tenant = await newTenant('Acme Group', 2);
  other = await newTenant('Other Group', 1);
});

afterAll(async () => {
  await runtime?.stop();
});

afterEach(() => restoreClock());

const call = (apiKey: string | undefined, body: unknown, contentType?: string) =>
  requestLink(runtime.urls.main, apiKey, body, contentType);

/** An error in the interface's shape: `state` is the HTTP status, `success` false, a message, a ms timestamp. */
const expectRefusal = (answer: Answer, status: number, message: string | RegExp) => {
  expect(answer.status).toBe(status);
  expect(answer.body).toEqual({
    message: expect.stringMatching(message),
    state: status,
    success: false,
    timestamp: expect.any(Number),
  });
};

describe('POST /api/v1/oauth', SLOW_MACHINE, () => {
  it('answers {data: {oauthUrl}, message, state: 200, success: true, timestamp} for a sub-account of the store owner', async () => {
    const username = await newSubAccount(tenant);
    const before = Date.now();
    const answer = await call(tenant.stores[0]?.apiKey, { username, password: PASSWORD });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      data: { oauthUrl: expect.any(String) },
      message: expect.any(String),
      state: 200,
      success: true,
      timestamp: expect.any(Number),
    });
    // Milliseconds, not seconds.
    expect(answer.body.timestamp).toBeGreaterThanOrEqual(before);
    const url = new URL((answer.body.data as { oauthUrl: string }).oauthUrl);
    expect(`${url.origin}${url.pathname}`).toBe(`${runtime.urls.main}/oauth/callback`);
    // 256 random bits in base64url.
    expect(url.searchParams.get('token')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('gives a different link at every call', async () => {
    const username = await newSubAccount(tenant);
    const first = await call(tenant.stores[0]?.apiKey, { username, password: PASSWORD });
    const second = await call(tenant.stores[0]?.apiKey, { username, password: PASSWORD });
    expect(first.body.data).not.toEqual(second.body.data);
  });

  it('re-hashes a password made with weaker scrypt parameters at the next successful sign-in', async () => {
    const username = await newSubAccount(tenant);
    const accounts = dynamoAccountRepository();
    await accounts.setPasswordHash(username, await hashPassword(PASSWORD, { ln: 10, r: 8, p: 1 }), Date.now());
    expect((await call(primary(tenant).apiKey, { username, password: PASSWORD })).status).toBe(200);
    const upgraded = (await accounts.getSub(username))?.passwordHash ?? '';
    expect(upgraded).toMatch(/^scrypt\$ln=15,/);
    expect(needsRehash(upgraded)).toBe(false);
    expect((await call(primary(tenant).apiKey, { username, password: PASSWORD })).status).toBe(200);
  });

  it('takes the username without regard to case or surrounding spaces', async () => {
    const username = await newSubAccount(tenant);
    const answer = await call(tenant.stores[0]?.apiKey, {
      username: `  ${username.toUpperCase()} `,
      password: PASSWORD,
    });
    expect(answer.status).toBe(200);
  });

  it('answers 401 for a wrong password and the very same answer for an unknown username', async () => {
    const username = await newSubAccount(tenant);
    const wrong = await call(tenant.stores[0]?.apiKey, { username, password: `${PASSWORD}x` });
    const unknown = await call(tenant.stores[0]?.apiKey, { username: uniqueName('nobody'), password: PASSWORD });
    expectRefusal(wrong, 401, /^Wrong username or password$/);
    expectRefusal(unknown, 401, /^Wrong username or password$/);
    expect({ ...wrong.body, timestamp: 0 }).toEqual({ ...unknown.body, timestamp: 0 });
  });

  it('answers a sub-account of another main account like an unknown username (401), even with the right password', async () => {
    const outsider = await newSubAccount(other);
    const answer = await call(tenant.stores[0]?.apiKey, { username: outsider, password: PASSWORD });
    expectRefusal(answer, 401, /^Wrong username or password$/);
    // No cross-tenant lockout: guesses through another tenant's key lock the name for that tenant only (as they would
    // an unknown name), and the outsider still signs in through its own store.
    for (let i = 0; i < 4; i++) {
      expect((await call(tenant.stores[0]?.apiKey, { username: outsider, password: `guess ${i}` })).status).toBe(401);
    }
    expect((await call(tenant.stores[0]?.apiKey, { username: outsider, password: PASSWORD })).status).toBe(429);
    expect((await call(primary(other).apiKey, { username: outsider, password: PASSWORD })).status).toBe(200);
  });

  it('answers 403 to a sub-account limited to other stores of the same main account, and 200 for its own store', async () => {
    const [first, second] = tenant.stores;
    const limited = await newSubAccount(tenant, [second?.storeId ?? '']);
    expectRefusal(await call(first?.apiKey, { username: limited, password: PASSWORD }), 403, /no access to this store/);
    expect((await call(second?.apiKey, { username: limited, password: PASSWORD })).status).toBe(200);
  });

  it('answers 401 through a store that no main account owns', async () => {
    const { storeAdminDeps } = await import('#shared/wiring/store-admin.ts');
    const { createStore } = await import('#shared/domain/stores/manage-stores.ts');
    const { apiKey } = await createStore(storeAdminDeps(), { name: 'Unowned', type: 'direct' });
    const username = await newSubAccount(tenant);
    expectRefusal(await call(apiKey, { username, password: PASSWORD }), 401, /^Wrong username or password$/);
  });

  it.each([
    ['no username', { password: PASSWORD }, /^username is required$/],
    ['no password', { username: 'someone' }, /^password is required$/],
    ['an empty username', { username: '  ', password: PASSWORD }, /^username must not be empty$/],
    ['an empty password', { username: 'someone', password: '' }, /^password must not be empty$/],
    ['a number as password', { username: 'someone', password: 12345 }, /^password must be a string$/],
    ['an array body', [], /^body must be a JSON object$/],
  ])('answers 400 naming the field for %s', async (_, body, message) => {
    expectRefusal(await call(tenant.stores[0]?.apiKey, body), 400, message);
  });

  it('answers 400 to a body that is not JSON', async () => {
    expectRefusal(
      await call(tenant.stores[0]?.apiKey, 'username=a&password=b', 'application/json'),
      400,
      /not valid JSON/,
    );
    expectRefusal(
      await call(tenant.stores[0]?.apiKey, '{}', 'text/plain'),
      400,
      /Content-Type must be application\/json/,
    );
  });

  it('answers 401 without the store key or with a wrong one, before looking at the body', async () => {
    const username = await newSubAccount(tenant);
    expectRefusal(await call(undefined, { username, password: PASSWORD }), 401, /Missing X-Service-Access-Token/);
    expectRefusal(
      await call(`shop_${'x'.repeat(40)}`, { username, password: PASSWORD }),
      401,
      /Invalid X-Service-Access-Token/,
    );
    expectRefusal(await call(undefined, 'not json'), 401, /Missing X-Service-Access-Token/);
  });
});

describe('request rate per store key', SLOW_MACHINE, () => {
  it('refuses a burst beyond the per-second limit with 429 and Retry-After before hashing, never a 5xx', async () => {
    const burst = await newTenant('Burst Group', 1);
    const apiKey = primary(burst).apiKey;
    // More than the limit at once: the extra requests are refused by the rate limit, not by the username lockout
    // (distinct unknown usernames, each failing once). Sent at the start of a second: the limiter counts fixed wall-clock
    // seconds, and a burst that straddles a boundary can split evenly below the limit on a loaded machine (seen once).
    await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000)));
    const answers = await Promise.all(
      Array.from({ length: LIMITS.oauthPerSecond * 2 }, (_, i) =>
        call(apiKey, { username: `${uniqueName('burst')}-${i}`, password: 'wrong password' }),
      ),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.every((s) => s === 401 || s === 429)).toBe(true);
    const limited = answers.filter((a) => a.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    for (const answer of limited) {
      expectRefusal(answer, 429, /^Too many requests/);
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
    }
  });
});

describe('lockout after repeated failures', SLOW_MACHINE, () => {
  it('locks the username after 5 failures: 429 with Retry-After, even for the right password, for 15 minutes', async () => {
    const username = await newSubAccount(tenant);
    const store = tenant.stores[0]?.apiKey;
    for (let i = 1; i <= 5; i++) {
      expectRefusal(await call(store, { username, password: `wrong ${i}` }), 401, /Wrong username or password/);
    }
    const locked = await call(store, { username, password: PASSWORD });
    expectRefusal(locked, 429, /Too many failed sign-ins for this username; try again in \d+ seconds/);
    const retryAfter = Number(locked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(14 * 60);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);

    // The lock is per username: another sub-account signs in through the same store.
    const neighbour = await newSubAccount(tenant);
    expect((await call(store, { username: neighbour, password: PASSWORD })).status).toBe(200);

    moveClock(15 * 60_000 + 1_000);
    expect((await call(store, { username, password: PASSWORD })).status).toBe(200);
  });

  it('lets at most 5 guesses through when 12 wrong passwords and the right one arrive at once', async () => {
    // A tenant of its own: the burst's attempts count against its store key too.
    const own = await newTenant('Concurrent guesses', 1);
    const username = await newSubAccount(own);
    const store = own.stores[0]?.apiKey;
    const guesses = [...Array.from({ length: 12 }, (_, i) => `wrong ${i}`), PASSWORD];
    const answers = await Promise.all(guesses.map((password) => call(store, { username, password })));
    // Each attempt is counted before its password is hashed: the sixth and later are refused, whichever they are.
    const checked = answers.filter((answer) => answer.status !== 429);
    expect(checked.length).toBeLessThanOrEqual(5);
    expect(answers.filter((answer) => answer.status === 429).length).toBeGreaterThanOrEqual(8);
    // Refused by the lockout (or, sharing the store key's second with the test before, by its request rate).
    for (const answer of answers.filter((a) => a.status === 429)) {
      expectRefusal(answer, 429, /this username|^Too many requests/);
    }
  });

  it('locks an unknown username the same way, so the lock tells nothing about which usernames exist', async () => {
    const username = uniqueName('ghost');
    for (let i = 0; i < 5; i++)
      expect((await call(tenant.stores[0]?.apiKey, { username, password: 'x' })).status).toBe(401);
    expectRefusal(await call(tenant.stores[0]?.apiKey, { username, password: 'x' }), 429, /this username/);
  });

  it('forgets earlier failures after a successful sign-in', async () => {
    const username = await newSubAccount(tenant);
    const store = tenant.stores[0]?.apiKey;
    for (let i = 0; i < 4; i++) expect((await call(store, { username, password: 'nope' })).status).toBe(401);
    expect((await call(store, { username, password: PASSWORD })).status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await call(store, { username, password: 'nope' })).status).toBe(401);
    expect((await call(store, { username, password: PASSWORD })).status).toBe(200);
  });

  it('counts failures within 15 minutes of the first: older ones no longer count', async () => {
    const username = await newSubAccount(tenant);
    const store = tenant.stores[0]?.apiKey;
    for (let i = 0; i < 4; i++) expect((await call(store, { username, password: 'nope' })).status).toBe(401);
    moveClock(15 * 60_000 + 1_000);
    for (let i = 0; i < 4; i++) expect((await call(store, { username, password: 'nope' })).status).toBe(401);
    expect((await call(store, { username, password: PASSWORD })).status).toBe(200);
  });

  it(`locks the store key after ${STORE_LOCKOUT.maxFailures} failures over any usernames`, async () => {
    const victim = await newTenant('Sprayed Group', 1);
    const store = victim.stores[0];
    const username = await newSubAccount(victim);
    // The first attempts are counted straight into the table (each over HTTP would cost a scrypt hash).
    const throttle = dynamoSignInThrottle();
    for (let i = 1; i < STORE_LOCKOUT.maxFailures; i++) {
      expect(await throttle.claimAttempt(`store#${store?.storeId}`, Date.now(), STORE_LOCKOUT)).toBe(0);
    }
    expect((await call(store?.apiKey, { username: uniqueName('guess'), password: 'x' })).status).toBe(401);
    const locked = await call(store?.apiKey, { username, password: PASSWORD });
    expectRefusal(locked, 429, /this store key/);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(14 * 60);
    // Other stores are not affected.
    const neighbour = await newSubAccount(tenant);
    expect((await call(tenant.stores[0]?.apiKey, { username: neighbour, password: PASSWORD })).status).toBe(200);
  });
});
