import { cachedPerStore } from '#shared/adapters/dynamodb/store.repository.ts';
import type { Clock } from '#shared/domain/clock.ts';
import { decryptApiKey } from '#shared/domain/stores/api-key.ts';
import type { StoreKeys } from '#shared/domain/webhooks/ports.ts';
import { masterKey } from './master-key.ts';

/** Store keys in clear for signing, decrypted once per store per minute (a rotated key signs within a minute). */
export const storeKeys = (clock: Clock): StoreKeys => ({
  keyOf: cachedPerStore(clock, 60_000, async (store) =>
    store ? decryptApiKey(store.keyCipher, await masterKey()) : undefined,
  ),
});
