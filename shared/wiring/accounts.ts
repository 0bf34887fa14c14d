/** Wiring of the account and sign-in use cases to their adapters (built once per warm function). */

import {
  dynamoAccountRepository,
  dynamoSessions,
  dynamoSignInLinks,
  dynamoSignInThrottle,
} from '#shared/adapters/dynamodb/account.repositories.ts';
import { dynamoStoreRepository } from '#shared/adapters/dynamodb/store.repository.ts';
import { systemClock } from '#shared/clock.ts';
import type { AccountAdminDeps } from '#shared/domain/accounts/manage-accounts.ts';
import type { SignInDeps } from '#shared/domain/accounts/sign-in.ts';
import { lazy } from '#shared/lazy.ts';

export const signInDeps = /* @__PURE__ */ lazy(
  (): SignInDeps => ({
    accounts: dynamoAccountRepository(),
    stores: dynamoStoreRepository(),
    links: dynamoSignInLinks(),
    sessions: dynamoSessions(),
    throttle: dynamoSignInThrottle(),
    clock: systemClock,
  }),
);

export const accountAdminDeps = (): AccountAdminDeps => ({ accounts: dynamoAccountRepository(), clock: systemClock });
