import { dynamo } from '#shared/adapters/aws-clients.ts';
import { DeleteCommand, PutCommand, UpdateCommand } from '#shared/adapters/dynamodb-client.ts';
import { systemClock } from '#shared/clock.ts';
import type { Clock } from '#shared/domain/clock.ts';
import type { AuthenticatedStore, Store } from '#shared/domain/stores/model.ts';
import type { StoreRepository } from '#shared/domain/stores/ports.ts';
import { monthsKeptItem } from './attribution.ts';
import { exactCountStateItem } from './contact-counts.ts';
import { itemMeta, keys } from './keys.ts';
import { queryIndex } from './query.ts';
import { getItem, getRecord, tableName } from './table.ts';

/**
 * Stores and their API keys. A key item (`APIKEY#<sha256>`) points to its store; authentication also checks that the
 * store's current hash is that key's, so a half-finished rotation can never leave two valid keys.
 */
export const dynamoStoreRepository = (): StoreRepository => {
  const get = (storeId: string) => getRecord<Store>(keys.store(storeId), false);

  return {
    get,

    async findByKeyHash(keyHash: string): Promise<AuthenticatedStore | undefined> {
      const item = await getItem(keys.apiKey(keyHash), false);
      if (!item) return undefined;
      const store = await get(String(item.storeId));
      if (!store) return undefined;
      if (store.keyHash === keyHash) return { storeId: store.storeId, type: store.type };
      // The publishable key's item says so; it authenticates only while it is the store's current one.
      if (item.scope === 'publishable' && store.publishableKeyHash === keyHash) {
        return {
          storeId: store.storeId,
          type: store.type,
          publishable: { allowedOrigins: store.allowedOrigins ?? [], linkHosts: store.linkHosts ?? [] },
        };
      }
      return undefined;
    },

    async create(store: Store) {
      await dynamo().send(
        new PutCommand({
          TableName: tableName(),
          Item: { ...keys.apiKey(store.keyHash), ...itemMeta('apiKey'), storeId: store.storeId },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      await dynamo().send(
        new PutCommand({
          TableName: tableName(),
          Item: {
            ...keys.store(store.storeId),
            ...keys.storeIndex(store.createdAt, store.storeId),
            ...(store.mainAccountId ? keys.storesOfAccount(store.mainAccountId, store.storeId) : {}),
            ...itemMeta('store'),
            ...store,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      // No contacts yet: the export's counters start exact and the contact writes keep them so.
      await dynamo().send(new PutCommand({ TableName: tableName(), Item: exactCountStateItem(store.storeId) }));
      // No counts yet: its month counters start whole and every count adds to its month too.
      await dynamo().send(new PutCommand({ TableName: tableName(), Item: monthsKeptItem(store.storeId) }));
    },

    async replaceKey(storeId, oldKeyHash, next) {
      await dynamo().send(
        new PutCommand({
          TableName: tableName(),
          Item: { ...keys.apiKey(next.keyHash), ...itemMeta('apiKey'), storeId },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      // The switch itself: from here on only the new key authenticates.
      await dynamo().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.store(storeId),
          UpdateExpression: 'SET keyHash = :next, keyCipher = :cipher, keyRotatedAt = :now',
          ConditionExpression: 'keyHash = :old',
          ExpressionAttributeValues: {
            ':next': next.keyHash,
            ':cipher': next.keyCipher,
            ':old': oldKeyHash,
            ':now': systemClock.now(),
          },
        }),
      );
      await dynamo().send(new DeleteCommand({ TableName: tableName(), Key: keys.apiKey(oldKeyHash) }));
    },

    list: () => queryIndex<Store>('gsi1', keys.storeIndex(0, '').gsi1pk),

    async setDailySendCap(storeId, cap) {
      await dynamo().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.store(storeId),
          UpdateExpression: cap === undefined ? 'REMOVE dailySendCap' : 'SET dailySendCap = :cap',
          ConditionExpression: 'attribute_exists(pk)',
          ...(cap === undefined ? {} : { ExpressionAttributeValues: { ':cap': cap } }),
        }),
      );
    },

    async setSmartSending(storeId, settings) {
      await dynamo().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.store(storeId),
          UpdateExpression: 'SET smartSending = :settings',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':settings': settings },
        }),
      );
    },

    async setInfluenceWindow(storeId, days) {
      await dynamo().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.store(storeId),
          UpdateExpression: days === undefined ? 'REMOVE influenceWindowDays' : 'SET influenceWindowDays = :days',
          ConditionExpression: 'attribute_exists(pk)',
          ...(days === undefined ? {} : { ExpressionAttributeValues: { ':days': days } }),
        }),
      );
    },

    async setPublishableKey(storeId, next) {
      if (next.key) {
        await dynamo().send(
          new PutCommand({
            TableName: tableName(),
            Item: { ...keys.apiKey(next.key.hash), ...itemMeta('apiKey'), storeId, scope: 'publishable' },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
      }
      await dynamo().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.store(storeId),
          UpdateExpression: next.key
            ? 'SET allowedOrigins = :origins, linkHosts = :hosts, publishableKey = :key, publishableKeyHash = :hash'
            : 'SET allowedOrigins = :origins, linkHosts = :hosts',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: {
            ':origins': [...next.allowedOrigins],
            ':hosts': [...next.linkHosts],
            ...(next.key ? { ':key': next.key.value, ':hash': next.key.hash } : {}),
          },
        }),
      );
      // The previous publishable key stops authenticating at the switch above; its item goes too.
      if (next.key?.replaces) {
        await dynamo().send(new DeleteCommand({ TableName: tableName(), Key: keys.apiKey(next.key.replaces) }));
      }
    },
  };
};

/**
 * A value derived from a store's record (`derive` gets undefined for an unknown store), cached per warm function for
 * `ttlMs`: what rarely changes (a name, a signing key) costs one read per store per period instead of one per use.
 */
export const cachedPerStore = <V>(
  clock: Clock,
  ttlMs: number,
  derive: (store: Store | undefined) => V | Promise<V>,
): ((storeId: string) => Promise<V>) => {
  const stores = dynamoStoreRepository();
  const cache = new Map<string, { value: V; until: number }>();
  return async (storeId) => {
    const hit = cache.get(storeId);
    if (hit && hit.until > clock.now()) return hit.value;
    const value = await derive(await stores.get(storeId));
    cache.set(storeId, { value, until: clock.now() + ttlMs });
    return value;
  };
};
