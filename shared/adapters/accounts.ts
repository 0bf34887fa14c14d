/** Wiring of the account and sign-in use cases to their adapters (built once per warm function). */
import type { AccountAdminDeps } from '../domain/accounts/manage-accounts.ts';
import type { SignInDeps } from '../domain/accounts/sign-in.ts';
import {
  dynamoAccountRepository,
  dynamoSessions,
  dynamoSignInLinks,
  dynamoSignInThrottle,
} from './dynamodb/account.repositories.ts';
import { dynamoStoreRepository } from './dynamodb/store.repository.ts';

const clock = { now: () => Date.now() };

let signIn: SignInDeps | undefined;

export const signInDeps = (): SignInDeps => {
  signIn ??= {
    accounts: dynamoAccountRepository(),
    stores: dynamoStoreRepository(),
    links: dynamoSignInLinks(),
    sessions: dynamoSessions(),
    throttle: dynamoSignInThrottle(),
    clock,
  };
  return signIn;
};

export const accountAdminDeps = (): AccountAdminDeps => ({ accounts: dynamoAccountRepository(), clock });
