/** Ports of the accounts area: what its use cases need from the outside world. Nothing here imports an AWS SDK. */
import type { LockoutPolicy, MainAccount, Session, SignInLink, SubAccount } from './model.ts';

/** Main accounts, their sub-accounts (by username) and the stores each main account owns. */
export interface AccountRepository {
  createMain(account: MainAccount): Promise<void>;
  getMain(mainAccountId: string): Promise<MainAccount | undefined>;
  listMain(): Promise<MainAccount[]>;
  /** Throws a `conflict` AppError when the username is taken (usernames are unique across main accounts). */
  createSub(account: SubAccount): Promise<void>;
  getSub(username: string): Promise<SubAccount | undefined>;
  listSubs(mainAccountId: string): Promise<SubAccount[]>;
  setPasswordHash(username: string, passwordHash: string, updatedAt: number): Promise<void>;
  /** Ends every session and unused link of the account made before `at` (sets `sessionsValidFrom`). */
  revokeSessions(username: string, at: number): Promise<void>;
  /** Makes the main account the store's owner (again: idempotent); a store owned by another stays theirs. */
  linkStore(storeId: string, mainAccountId: string): Promise<'linked' | 'no_store' | 'owned_by_other'>;
  /** The stores the main account owns, in store id order. */
  storesOf(mainAccountId: string): Promise<{ storeId: string; name: string }[]>;
}

export interface SignInLinks {
  create(link: SignInLink): Promise<void>;
  /** Marks the link used, at most once across all instances, and answers why when it cannot be used. */
  consume(
    tokenHash: string,
    now: number,
  ): Promise<{ outcome: 'consumed'; link: SignInLink } | { outcome: 'unknown' | 'used' | 'expired' }>;
}

export interface Sessions {
  create(session: Session): Promise<void>;
  /** The session while it is valid at `now`. */
  get(sessionHash: string, now: number): Promise<Session | undefined>;
  delete(sessionHash: string): Promise<void>;
}

/** Failed sign-ins per scope (`user#<main account of the calling store>#<username>`, `store#<storeId>`), shared by every instance. */
export interface SignInThrottle {
  /**
   * Counts one attempt before the password is checked, atomically across instances: 0 when it may go ahead, else the
   * milliseconds until the scope may try again. At most `policy.maxFailures` attempts pass per window (from the first
   * one), whatever the concurrency; a successful one is given back.
   */
  claimAttempt(scope: string, now: number, policy: LockoutPolicy): Promise<number>;
  /** Gives one attempt back (it succeeded). */
  refund(scope: string): Promise<void>;
  /** Forgets the scope's attempts (a successful sign-in of the username). */
  clear(scope: string): Promise<void>;
}
