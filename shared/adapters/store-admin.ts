import type { StoreAdminDeps } from '../domain/stores/manage-stores.ts';
import { dynamoStoreRepository } from './dynamodb/store.repository.ts';
import { masterKey } from './secrets/master-key.ts';

/** Store administration wired to DynamoDB and the Secrets Manager master key. */
export const storeAdminDeps = (): StoreAdminDeps => ({
  stores: dynamoStoreRepository(),
  masterKey,
  clock: { now: () => Date.now() },
});
