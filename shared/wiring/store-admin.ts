import { dynamoStoreRepository } from '#shared/adapters/dynamodb/store.repository.ts';
import { masterKey } from '#shared/adapters/secrets/master-key.ts';
import { systemClock } from '#shared/clock.ts';
import type { StoreAdminDeps } from '#shared/domain/stores/manage-stores.ts';

/** Store administration wired to DynamoDB and the Secrets Manager master key. */
export const storeAdminDeps = (): StoreAdminDeps => ({
  stores: dynamoStoreRepository(),
  masterKey,
  clock: systemClock,
});
