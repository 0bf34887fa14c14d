/**
 * Store authentication from `X-Service-Access-Token` (spec "Authentication"): the key's SHA-256 is looked up, with a
 * short in-memory cache per warm function so a busy store costs no read per request. A rotated key keeps working in
 * warm functions for at most `AUTH_CACHE_SECONDS` (default 5), which `store rotate-key` tells the operator.
 */
import { config } from '#shared/config.ts';
import { hashApiKey, looksLikeApiKey, looksLikePublishableKey } from '#shared/domain/stores/api-key.ts';
import type { AuthenticatedStore } from '#shared/domain/stores/model.ts';
import type { StoreRepository } from '#shared/domain/stores/ports.ts';
import { unauthorized } from '#shared/errors.ts';
import { onReset } from '#shared/lazy.ts';

const MAX_CACHED_KEYS = 10_000;

const cache = new Map<string, { store: AuthenticatedStore; until: number }>();
onReset(() => cache.clear());

export const authenticate = async (
  stores: StoreRepository,
  token: string | undefined,
  now: number,
): Promise<AuthenticatedStore> => {
  const key = token?.trim();
  if (!key) throw unauthorized('Missing X-Service-Access-Token header');
  if (!looksLikeApiKey(key) && !looksLikePublishableKey(key)) throw unauthorized('Invalid X-Service-Access-Token');
  const keyHash = hashApiKey(key);
  const hit = cache.get(keyHash);
  if (hit && hit.until > now) return hit.store;

  const store = await stores.findByKeyHash(keyHash);
  if (!store) {
    cache.delete(keyHash);
    throw unauthorized('Invalid X-Service-Access-Token');
  }
  if (cache.size >= MAX_CACHED_KEYS) cache.delete(cache.keys().next().value as string);
  cache.set(keyHash, { store, until: now + config().authCacheSeconds * 1000 });
  return store;
};
