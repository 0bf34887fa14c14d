/** Accounts, sign-in links, back-office sessions and failed-sign-in counters (OAuth sign-in). */

import { dynamo } from '#shared/adapters/aws-clients.ts';
import { DeleteCommand, PutCommand, UpdateCommand } from '#shared/adapters/dynamodb-client.ts';
import type { LockoutPolicy, MainAccount, Session, SignInLink, SubAccount } from '#shared/domain/accounts/model.ts';
import type { AccountRepository, Sessions, SignInLinks, SignInThrottle } from '#shared/domain/accounts/ports.ts';
import { conflict } from '#shared/errors.ts';
import { itemMeta, keys, withoutMeta } from './keys.ts';
import { queryIndex } from './query.ts';
import { getItem, getRecord, ignoreConditionFailure, isConditionFailure, tableName } from './table.ts';

/** DynamoDB's TTL works in epoch seconds and may lag by days: readers check validity themselves. */
const ttlSeconds = (epochMs: number) => Math.ceil(epochMs / 1000);

/**
 * A used or expired link is kept a day past its end, so opening it again is answered "already used" or "expired"
 * (410) rather than "not a valid link" (400); after that TTL removes it.
 */
const LINK_RETENTION_MS = 24 * 3_600_000;

export const dynamoAccountRepository = (): AccountRepository => ({
  async createMain(account: MainAccount) {
    await dynamo().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.mainAccount(account.mainAccountId),
          ...keys.mainAccountIndex(account.createdAt, account.mainAccountId),
          ...itemMeta('mainAccount'),
          ...account,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  },

  getMain: (mainAccountId) => getRecord<MainAccount>(keys.mainAccount(mainAccountId)),

  listMain: () => queryIndex<MainAccount>('gsi1', keys.mainAccountIndex(0, '').gsi1pk),

  async createSub(account: SubAccount) {
    try {
      await dynamo().send(
        new PutCommand({
          TableName: tableName(),
          Item: {
            ...keys.account(account.username),
            ...keys.accountsOf(account.mainAccountId, account.username),
            ...itemMeta('account'),
            ...account,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (error) {
      if (isConditionFailure(error)) throw conflict(`The username ${account.username} is taken`);
      throw error;
    }
  },

  getSub: (username) => getRecord<SubAccount>(keys.account(username)),

  listSubs: (mainAccountId) => queryIndex<SubAccount>('gsi1', keys.accountsOf(mainAccountId, '').gsi1pk),

  async setPasswordHash(username, passwordHash, updatedAt) {
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.account(username),
        UpdateExpression: 'SET passwordHash = :hash, updatedAt = :at',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':hash': passwordHash, ':at': updatedAt },
      }),
    );
  },

  async revokeSessions(username, at) {
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.account(username),
        UpdateExpression: 'SET sessionsValidFrom = :at',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':at': at },
      }),
    );
  },

  async linkStore(storeId, mainAccountId) {
    const index = keys.storesOfAccount(mainAccountId, storeId);
    try {
      await dynamo().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.store(storeId),
          UpdateExpression: 'SET mainAccountId = :main, gsi2pk = :gpk, gsi2sk = :gsk',
          ConditionExpression:
            'attribute_exists(pk) AND (attribute_not_exists(mainAccountId) OR mainAccountId = :main)',
          ExpressionAttributeValues: { ':main': mainAccountId, ':gpk': index.gsi2pk, ':gsk': index.gsi2sk },
        }),
      );
      return 'linked';
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      return (await getItem(keys.store(storeId))) ? 'owned_by_other' : 'no_store';
    }
  },

  async storesOf(mainAccountId) {
    const stores = await queryIndex<{ storeId: string; name: string }>(
      'gsi2',
      keys.storesOfAccount(mainAccountId, '').gsi2pk,
    );
    return stores.map(({ storeId, name }) => ({ storeId, name }));
  },
});

export const dynamoSignInLinks = (): SignInLinks => ({
  async create(link: SignInLink) {
    await dynamo().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.oauthLink(link.tokenHash),
          ...itemMeta('oauthLink'),
          ...link,
          expiresAt: ttlSeconds(link.validUntil + LINK_RETENTION_MS),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  },

  async consume(tokenHash, now) {
    try {
      // One conditional write decides: of two concurrent openings, exactly one gets the session.
      const { Attributes } = await dynamo().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.oauthLink(tokenHash),
          UpdateExpression: 'SET usedAt = :now',
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(usedAt) AND validUntil > :now',
          ExpressionAttributeValues: { ':now': now },
          ReturnValues: 'ALL_NEW',
        }),
      );
      const { usedAt, ...link } = withoutMeta<SignInLink & { usedAt: number }>(Attributes ?? {});
      return { outcome: 'consumed', link };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
    const item = await getItem(keys.oauthLink(tokenHash));
    if (!item) return { outcome: 'unknown' };
    return { outcome: item.usedAt !== undefined ? 'used' : 'expired' };
  },
});

export const dynamoSessions = (): Sessions => ({
  async create(session: Session) {
    await dynamo().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.session(session.sessionHash),
          ...itemMeta('session'),
          ...session,
          expiresAt: ttlSeconds(session.validUntil),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  },

  async get(sessionHash, now) {
    // Strongly consistent: the redirect after sign-in reads the session written a moment before.
    const session = await getRecord<Session>(keys.session(sessionHash));
    return session && session.validUntil > now ? session : undefined;
  },

  async delete(sessionHash) {
    await dynamo().send(new DeleteCommand({ TableName: tableName(), Key: keys.session(sessionHash) }));
  },
});

/**
 * One counter item per scope: the attempts (`failures`, kept under that name) of a window that starts at the first
 * one. An attempt is counted with a conditional write before the password is checked, so concurrent guesses can never
 * take the count past the policy's limit; a successful one is given back.
 */
export const dynamoSignInThrottle = (): SignInThrottle => {
  /** One more attempt in the running window, while it is under the limit. */
  const bump = async (scope: string, now: number, policy: LockoutPolicy): Promise<boolean> => {
    try {
      await dynamo().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.signInFailures(scope),
          UpdateExpression: 'ADD failures :one',
          ConditionExpression: 'windowStart > :floor AND failures < :max',
          ExpressionAttributeValues: { ':one': 1, ':floor': now - policy.windowMs, ':max': policy.maxFailures },
        }),
      );
      return true;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      return false;
    }
  };

  /** A new window with this attempt as its first: when there is none, or the last one is over. */
  const startWindow = async (scope: string, now: number, policy: LockoutPolicy): Promise<boolean> => {
    try {
      await dynamo().send(
        new PutCommand({
          TableName: tableName(),
          Item: {
            ...keys.signInFailures(scope),
            ...itemMeta('signInFailures'),
            failures: 1,
            windowStart: now,
            expiresAt: ttlSeconds(now + policy.windowMs),
          },
          ConditionExpression: 'attribute_not_exists(pk) OR windowStart <= :floor',
          ExpressionAttributeValues: { ':floor': now - policy.windowMs },
        }),
      );
      return true;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      return false;
    }
  };

  return {
    async claimAttempt(scope, now, policy) {
      // A concurrent attempt may have started the window between the two: counted in it, then.
      if ((await bump(scope, now, policy)) || (await startWindow(scope, now, policy))) return 0;
      if (await bump(scope, now, policy)) return 0;
      // The window is full: the scope may try again when it ends (or at once, if it just ended).
      const windowStart = Number((await getItem(keys.signInFailures(scope)))?.windowStart ?? now);
      return Math.max(1, windowStart + policy.windowMs - now);
    },

    async refund(scope) {
      await dynamo()
        .send(
          new UpdateCommand({
            TableName: tableName(),
            Key: keys.signInFailures(scope),
            UpdateExpression: 'ADD failures :minus',
            ConditionExpression: 'failures > :zero',
            ExpressionAttributeValues: { ':minus': -1, ':zero': 0 },
          }),
        )
        .catch(ignoreConditionFailure);
    },

    async clear(scope) {
      await dynamo().send(new DeleteCommand({ TableName: tableName(), Key: keys.signInFailures(scope) }));
    },
  };
};
