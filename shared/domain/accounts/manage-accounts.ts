/** Account administration (the admin command): main accounts, the stores they own, sub-accounts and their passwords. */

import type { Clock } from '#shared/domain/clock.ts';
import {
  assertAcceptablePassword,
  assertValidUsername,
  generatePassword,
  type MainAccount,
  newMainAccountId,
  normalizeUsername,
  type StoreAccess,
  type SubAccount,
} from './model.ts';
import { hashPassword } from './password.ts';
import type { AccountRepository } from './ports.ts';

export interface AccountAdminDeps {
  readonly accounts: AccountRepository;
  readonly clock: Clock;
}

const mainAccountOrFail = async (deps: AccountAdminDeps, mainAccountId: string): Promise<MainAccount> => {
  const main = await deps.accounts.getMain(mainAccountId);
  if (!main) throw new Error(`No main account ${mainAccountId}`);
  return main;
};

export const createMainAccount = async (deps: AccountAdminDeps, input: { name: string }): Promise<MainAccount> => {
  const name = input.name.trim();
  if (!name) throw new Error('A main account needs a name');
  const account: MainAccount = { mainAccountId: newMainAccountId(), name, createdAt: deps.clock.now() };
  await deps.accounts.createMain(account);
  return account;
};

/** Checks that the main account exists (before a store is created for it). */
export const findMainAccount = mainAccountOrFail;

/** Makes the main account the owner of an existing store; a store already owned by another one is refused. */
export const linkStore = async (
  deps: AccountAdminDeps,
  input: { mainAccountId: string; storeId: string },
): Promise<void> => {
  await mainAccountOrFail(deps, input.mainAccountId);
  const outcome = await deps.accounts.linkStore(input.storeId, input.mainAccountId);
  if (outcome === 'no_store') throw new Error(`No store ${input.storeId}`);
  if (outcome === 'owned_by_other') throw new Error(`Store ${input.storeId} belongs to another main account`);
};

/** `stores` absent: every store of the main account, now and later. Listed stores must be the main account's. */
const storeAccess = async (
  deps: AccountAdminDeps,
  mainAccountId: string,
  stores: readonly string[] | undefined,
): Promise<StoreAccess> => {
  if (stores === undefined) return 'all';
  const wanted = [...new Set(stores.map((s) => s.trim()).filter(Boolean))];
  if (wanted.length === 0) throw new Error('--stores needs at least one store id');
  const owned = new Set((await deps.accounts.storesOf(mainAccountId)).map((s) => s.storeId));
  const foreign = wanted.filter((id) => !owned.has(id));
  if (foreign.length) throw new Error(`Not stores of main account ${mainAccountId}: ${foreign.join(', ')}`);
  return wanted;
};

/** Creates a sub-account; without a password one is generated and returned (to be shown once). */
export const createSubAccount = async (
  deps: AccountAdminDeps,
  input: { mainAccountId: string; username: string; password?: string; stores?: readonly string[] },
): Promise<{ account: SubAccount; generatedPassword?: string }> => {
  const username = assertValidUsername(input.username);
  await mainAccountOrFail(deps, input.mainAccountId);
  const stores = await storeAccess(deps, input.mainAccountId, input.stores);
  const password = input.password ?? generatePassword();
  assertAcceptablePassword(password);
  const now = deps.clock.now();
  const account: SubAccount = {
    username,
    mainAccountId: input.mainAccountId,
    stores,
    passwordHash: await hashPassword(password),
    createdAt: now,
    updatedAt: now,
  };
  await deps.accounts.createSub(account);
  return { account, ...(input.password === undefined ? { generatedPassword: password } : {}) };
};

/** Replaces a sub-account's password; without one, one is generated and returned. */
export const setSubAccountPassword = async (
  deps: AccountAdminDeps,
  input: { username: string; password?: string },
): Promise<{ generatedPassword?: string }> => {
  const username = normalizeUsername(input.username);
  if (!(await deps.accounts.getSub(username))) throw new Error(`No sub-account ${username}`);
  const password = input.password ?? generatePassword();
  assertAcceptablePassword(password);
  const now = deps.clock.now();
  await deps.accounts.setPasswordHash(username, await hashPassword(password), now);
  // A changed password ends every session and unused link of the account: whoever had the old one is out.
  await deps.accounts.revokeSessions(username, now);
  return input.password === undefined ? { generatedPassword: password } : {};
};

/** `account revoke-sessions`: ends every session and unused sign-in link of the sub-account at once. */
export const revokeSubAccountSessions = async (deps: AccountAdminDeps, input: { username: string }) => {
  const username = normalizeUsername(input.username);
  if (!(await deps.accounts.getSub(username))) throw new Error(`No sub-account ${username}`);
  await deps.accounts.revokeSessions(username, deps.clock.now());
};

export interface AccountListing {
  readonly main: MainAccount;
  readonly stores: { storeId: string; name: string }[];
  readonly subAccounts: SubAccount[];
}

export const listAccounts = async (deps: AccountAdminDeps): Promise<AccountListing[]> => {
  const mains = await deps.accounts.listMain();
  return Promise.all(
    mains.map(async (main) => ({
      main,
      stores: await deps.accounts.storesOf(main.mainAccountId),
      subAccounts: await deps.accounts.listSubs(main.mainAccountId),
    })),
  );
};
