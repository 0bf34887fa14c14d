import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { StoreRepository } from '../../domain/ports.ts';
import type { AuthenticatedStore, Store } from '../../domain/stores/store.ts';
import { dynamo } from '../aws-clients.ts';
import { itemMeta, keys, withoutMeta } from './keys.ts';
import { tableName } from './table.ts';

/**
 * Stores and their API keys. A key item (`APIKEY#<sha256>`) points to its store; authentication also checks that the
 * store's current hash is that key's, so a half-finished rotation can never leave two valid keys.
 */
export const dynamoStoreRepository = (): StoreRepository => {
  const get = async (storeId: string): Promise<Store | undefined> => {
    const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.store(storeId) }));
    return Item ? withoutMeta<Store>(Item) : undefined;
  };

  return {
    get,

    async findByKeyHash(keyHash: string): Promise<AuthenticatedStore | undefined> {
      const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.apiKey(keyHash) }));
      if (!Item) return undefined;
      const store = await get(String(Item.storeId));
      return store && store.keyHash === keyHash ? { storeId: store.storeId, type: store.type } : undefined;
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
            ':now': Date.now(),
          },
        }),
      );
      await dynamo().send(new DeleteCommand({ TableName: tableName(), Key: keys.apiKey(oldKeyHash) }));
    },

    async list() {
      const stores: Store[] = [];
      let ExclusiveStartKey: Record<string, unknown> | undefined;
      do {
        const page = await dynamo().send(
          new QueryCommand({
            TableName: tableName(),
            IndexName: 'gsi1',
            KeyConditionExpression: 'gsi1pk = :pk',
            ExpressionAttributeValues: { ':pk': 'STORES' },
            ExclusiveStartKey,
          }),
        );
        for (const item of page.Items ?? []) stores.push(withoutMeta<Store>(item));
        ExclusiveStartKey = page.LastEvaluatedKey;
      } while (ExclusiveStartKey);
      return stores;
    },
  };
};
