/**
 * Store authentication from `X-Service-Access-Token` (spec "Authentication"): the key's SHA-256 is looked up, with a
 * short in-memory cache per warm function so a busy store costs no read per request. A rotated key keeps working in
 * warm functions for at most `AUTH_CACHE_SECONDS` (default 60).
 */
import { config } from '../config.ts';
import type { StoreRepository } from '../domain/ports.ts';
import { hashApiKey, looksLikeApiKey } from '../domain/stores/api-key.ts';
import type { AuthenticatedStore } from '../domain/stores/store.ts';
import { unauthorized } from '../errors.ts';

const MAX_CACHED_KEYS = 10_000;

const cache = new Map<string, { store: AuthenticatedStore; until: number }>();

export const authenticate = async (
  stores: StoreRepository,
  token: string | undefined,
  now: number,
): Promise<AuthenticatedStore> => {
  const key = token?.trim();
  if (!key) throw unauthorized('Missing X-Service-Access-Token header');
  if (!looksLikeApiKey(key)) throw unauthorized('Invalid X-Service-Access-Token');
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
