/**
 * Key rotation: the old key answered 200 for about 60 s after `store rotate-key`, which says the old key
 * stops working. A warm function now trusts a verified key for `DEFAULT_AUTH_CACHE_SECONDS` (5 s) at most.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_AUTH_CACHE_SECONDS } from '#shared/config.ts';
import { generateApiKey, hashApiKey } from '#shared/domain/stores/api-key.ts';
import type { AuthenticatedStore } from '#shared/domain/stores/model.ts';
import type { StoreRepository } from '#shared/domain/stores/ports.ts';
import { AppError } from '#shared/errors.ts';
import { authenticate } from '#shared/http/authenticate.ts';

const store: AuthenticatedStore = { storeId: 'st_rotated0000000000000', type: 'direct' };

/** Keys by hash, as the table holds them: rotating drops the old hash. */
const repository = (keys: Map<string, AuthenticatedStore>) =>
  ({ findByKeyHash: async (hash: string) => keys.get(hash) }) as unknown as StoreRepository;

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => (error instanceof AppError ? error.kind : String(error)),
  );

describe('authenticate after a key rotation', () => {
  it('stops taking the old key within the cache period, as rotate-key says', async () => {
    expect(DEFAULT_AUTH_CACHE_SECONDS).toBeLessThanOrEqual(5);
    const oldKey = generateApiKey();
    const keys = new Map([[hashApiKey(oldKey), store]]);
    const stores = repository(keys);
    const t0 = 1_800_000_000_000;
    expect(await authenticate(stores, oldKey, t0)).toEqual(store);

    const newKey = generateApiKey();
    keys.delete(hashApiKey(oldKey));
    keys.set(hashApiKey(newKey), store);
    expect(await authenticate(stores, newKey, t0 + 1_000)).toEqual(store);
    expect(await refusal(authenticate(stores, oldKey, t0 + DEFAULT_AUTH_CACHE_SECONDS * 1000 + 1))).toBe(
      'unauthorized',
    );
    // And 10 s after the rotation, whatever the configured default was before.
    expect(await refusal(authenticate(stores, oldKey, t0 + 10_000))).toBe('unauthorized');
  });
});
