/**
 * A console page's access check (`consoleStoreAccess`): the session's sub-account may open the one store the page is
 * about, read from the account and that store at every request; anything else is signed out (401) or not permitted
 * (404, a missing store and another account's alike).
 */
import { describe, expect, it } from 'vitest';
import type { Session, SubAccount } from '#shared/domain/accounts/model.ts';
import type { AccountRepository } from '#shared/domain/accounts/ports.ts';
import { consoleStoreAccess, hashSecret } from '#shared/domain/accounts/sign-in.ts';
import type { Store } from '#shared/domain/stores/model.ts';

const NOW = Date.parse('2026-11-25T10:00:00Z');
const SESSION_ID = 'a'.repeat(43);

const store = (storeId: string, mainAccountId?: string) =>
  ({ storeId, name: `Shop ${storeId}`, ...(mainAccountId ? { mainAccountId } : {}) }) as Store;

const setup = (account: Partial<SubAccount> | undefined, sessionCreatedAt = NOW - 1000) => {
  const session: Session = {
    sessionHash: hashSecret(SESSION_ID),
    username: 'ada',
    mainAccountId: 'ma_1',
    storeId: 'st_a',
    createdAt: sessionCreatedAt,
    validUntil: NOW + 3_600_000,
  };
  const stores = new Map([
    ['st_a', store('st_a', 'ma_1')],
    ['st_b', store('st_b', 'ma_1')],
    ['st_other', store('st_other', 'ma_2')],
    ['st_free', store('st_free')],
  ]);
  const sub = account
    ? ({ username: 'ada', mainAccountId: 'ma_1', stores: 'all', createdAt: 0, updatedAt: 0, ...account } as SubAccount)
    : undefined;
  return {
    accounts: { getSub: async (username: string) => (username === 'ada' ? sub : undefined) } as AccountRepository,
    stores: { get: async (storeId: string) => stores.get(storeId) },
    sessions: {
      get: async (hash: string) => (hash === session.sessionHash ? session : undefined),
      create: async () => {},
      delete: async () => {},
    },
    clock: { now: () => NOW },
  };
};

describe('consoleStoreAccess', () => {
  it('opens a store of the session’s main account that the sub-account may open', async () => {
    expect(await consoleStoreAccess(setup({}), SESSION_ID, 'st_b')).toEqual({ storeId: 'st_b', name: 'Shop st_b' });
    expect(await consoleStoreAccess(setup({ stores: ['st_a'] }), SESSION_ID, 'st_a')).toEqual({
      storeId: 'st_a',
      name: 'Shop st_a',
    });
  });

  it('answers another account’s store, a store without an account, a missing one and one not permitted alike', async () => {
    for (const storeId of ['st_other', 'st_free', 'st_missing']) {
      expect(await consoleStoreAccess(setup({}), SESSION_ID, storeId)).toBe('not_permitted');
    }
    expect(await consoleStoreAccess(setup({ stores: ['st_a'] }), SESSION_ID, 'st_b')).toBe('not_permitted');
  });

  it('is signed out without a session, with an unknown one, a revoked one, or an account that moved or is gone', async () => {
    expect(await consoleStoreAccess(setup({}), undefined, 'st_a')).toBe('signed_out');
    expect(await consoleStoreAccess(setup({}), 'not-a-session', 'st_a')).toBe('signed_out');
    expect(await consoleStoreAccess(setup({}), 'b'.repeat(43), 'st_a')).toBe('signed_out');
    expect(await consoleStoreAccess(setup({ sessionsValidFrom: NOW - 500 }), SESSION_ID, 'st_a')).toBe('signed_out');
    expect(await consoleStoreAccess(setup({ mainAccountId: 'ma_2' }), SESSION_ID, 'st_a')).toBe('signed_out');
    expect(await consoleStoreAccess(setup(undefined), SESSION_ID, 'st_a')).toBe('signed_out');
  });
});
