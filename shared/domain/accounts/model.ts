/**
 * Accounts of the back office (spec "OAuth sign-in"). A main account owns stores; its sub-accounts sign in with a
 * username and password and may open all of its stores or a listed few. Usernames are unique across the service and
 * compared without case.
 */

import { randomBase62 } from '#shared/domain/ids.ts';
import { validationError } from '#shared/errors.ts';

export interface MainAccount {
  /** `ma_` + 20 random base62 characters. */
  readonly mainAccountId: string;
  readonly name: string;
  /** Epoch milliseconds. */
  readonly createdAt: number;
}

/** `all`: every store the main account owns, now and later; otherwise exactly these store ids. */
export type StoreAccess = 'all' | readonly string[];

export interface SubAccount {
  /** Lower case (see {@link normalizeUsername}). */
  readonly username: string;
  readonly mainAccountId: string;
  readonly stores: StoreAccess;
  /** Self-describing password hash (see `password.ts`): algorithm, parameters, salt and hash. */
  readonly passwordHash: string;
  /** Epoch milliseconds. */
  readonly createdAt: number;
  readonly updatedAt: number;
  /**
   * Sessions and sign-in links made before this (epoch ms) no longer work: set by a password change and by
   * `account revoke-sessions`, so one write ends every session of the account at once.
   */
  readonly sessionsValidFrom?: number;
}

export const newMainAccountId = (): string => `ma_${randomBase62(20)}`;

const USERNAME = /^[a-z0-9][a-z0-9._@+-]{2,63}$/;
export const USERNAME_RULE = '3 to 64 characters: letters, digits and . _ @ + - (starting with a letter or digit)';

/** The form usernames are stored and looked up in: trimmed, lower case. */
export const normalizeUsername = (username: string): string => username.trim().toLowerCase();

/** Refuses a username a sub-account could not be created with (admin command). */
export const assertValidUsername = (username: string): string => {
  const normalized = normalizeUsername(username);
  if (!USERNAME.test(normalized)) throw validationError(`username must be ${USERNAME_RULE}`);
  return normalized;
};

/** Password rules for new passwords; sign-in accepts whatever is sent (up to the request limit) and simply fails. */
export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 1024;

export const assertAcceptablePassword = (password: string): void => {
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw validationError(`password must be at least ${MIN_PASSWORD_LENGTH} characters`);
  }
  if (password.length > MAX_PASSWORD_LENGTH) {
    throw validationError(`password must be at most ${MAX_PASSWORD_LENGTH} characters`);
  }
};

/** A generated password: 24 base62 characters (~143 bits), shown once by the admin command. */
export const generatePassword = (): string => randomBase62(24);

/** True when the sub-account may open this store of its main account. */
export const mayOpen = (account: SubAccount, storeId: string): boolean =>
  account.stores === 'all' || account.stores.includes(storeId);

/** A single-use sign-in link, stored by the SHA-256 of its token (the token itself exists only in the URL). */
export interface SignInLink {
  readonly tokenHash: string;
  readonly username: string;
  readonly mainAccountId: string;
  /** The store whose key asked for the link. */
  readonly storeId: string;
  /** Epoch milliseconds. */
  readonly createdAt: number;
  /** Epoch milliseconds; the link is refused from then on. */
  readonly validUntil: number;
}

/** A back-office session, stored by the SHA-256 of its id (the id itself exists only in the cookie). */
export interface Session {
  readonly sessionHash: string;
  readonly username: string;
  readonly mainAccountId: string;
  /** The store the sign-in link was asked for. */
  readonly storeId: string;
  /** Epoch milliseconds. */
  readonly createdAt: number;
  readonly validUntil: number;
}

/** How many failed sign-ins a scope (a username, a store key) may have before it is locked, and for how long. */
export interface LockoutPolicy {
  readonly maxFailures: number;
  /** Failures count within this long of the first one. */
  readonly windowMs: number;
  readonly lockMs: number;
}
