/** Password hashes (scrypt): self-describing, salted per hash, verified in constant time, upgradable. */
import { describe, expect, it } from 'vitest';
import {
  CURRENT_PARAMS,
  decoyHash,
  hashPassword,
  needsRehash,
  verifyPassword,
} from '#shared/domain/accounts/password.ts';

/** Cheap parameters where the test is not about the cost. */
const FAST = { ln: 10, r: 8, p: 1 };

describe('password hashes', () => {
  it('names the algorithm and the current parameters (N = 2^15, r = 8, p = 1 at least)', async () => {
    expect(CURRENT_PARAMS.ln).toBeGreaterThanOrEqual(15);
    expect(CURRENT_PARAMS.r).toBeGreaterThanOrEqual(8);
    const hash = await hashPassword('a long test password');
    expect(hash).toMatch(
      new RegExp(
        `^scrypt\\$ln=${CURRENT_PARAMS.ln},r=${CURRENT_PARAMS.r},p=${CURRENT_PARAMS.p}\\$[\\w-]{22}\\$[\\w-]{43}$`,
      ),
    );
    expect(hash).not.toContain('a long test password');
  });

  it('salts every hash: the same password never hashes the same twice', async () => {
    const [a, b] = await Promise.all([hashPassword('same password', FAST), hashPassword('same password', FAST)]);
    expect(a).not.toBe(b);
    expect(await verifyPassword('same password', a)).toBe(true);
    expect(await verifyPassword('same password', b)).toBe(true);
  });

  it('accepts only the exact password', async () => {
    const hash = await hashPassword('Exact Password 1', FAST);
    expect(await verifyPassword('Exact Password 1', hash)).toBe(true);
    for (const wrong of ['exact password 1', 'Exact Password 1 ', 'Exact Password', '']) {
      expect(await verifyPassword(wrong, hash)).toBe(false);
    }
  });

  it('treats a composed and a decomposed accent as the same password (NFC)', async () => {
    const hash = await hashPassword('caf\u00e9 au lait!!', FAST);
    expect(await verifyPassword('cafe\u0301 au lait!!', hash)).toBe(true);
  });

  it('refuses a hash it cannot read, or one asking for absurd parameters, instead of throwing', async () => {
    const hash = await hashPassword('whatever password', FAST);
    expect(await verifyPassword('whatever password', hash.replace('scrypt$', 'bcrypt$'))).toBe(false);
    expect(await verifyPassword('whatever password', hash.replace('ln=10', 'ln=30'))).toBe(false);
    expect(await verifyPassword('whatever password', 'garbage')).toBe(false);
  });

  it('keeps verifying hashes made with weaker parameters, and says they need re-hashing', async () => {
    const weak = await hashPassword('old account password', FAST);
    expect(await verifyPassword('old account password', weak)).toBe(true);
    expect(needsRehash(weak)).toBe(true);
    expect(needsRehash(await hashPassword('new account password'))).toBe(false);
  });

  it('has a decoy hash with the current parameters for unknown usernames', async () => {
    const decoy = await decoyHash();
    expect(needsRehash(decoy)).toBe(false);
    expect(await verifyPassword('', decoy)).toBe(false);
  });
});
