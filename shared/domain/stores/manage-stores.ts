/** Store administration use cases (the admin command): create a store with its first key, rotate a key, reveal it. */

import type { Clock } from '#shared/domain/clock.ts';
import { parseLinkHost } from '#shared/domain/events/public-links.ts';
import { newId } from '#shared/domain/ids.ts';
import { decryptApiKey, encryptApiKey, generateApiKey, generatePublishableKey, hashApiKey } from './api-key.ts';
import type { Store, StoreType } from './model.ts';
import type { StoreRepository } from './ports.ts';

export interface StoreAdminDeps {
  readonly stores: StoreRepository;
  readonly masterKey: () => Promise<Buffer>;
  readonly clock: Clock;
}

const sealedKey = async (deps: StoreAdminDeps) => {
  const apiKey = generateApiKey();
  return { apiKey, keyHash: hashApiKey(apiKey), keyCipher: encryptApiKey(apiKey, await deps.masterKey()) };
};

/** Creates a store; the returned key is shown once (only its hash and its sealed form are stored). */
export const createStore = async (
  deps: StoreAdminDeps,
  input: { name: string; type: StoreType; mainAccountId?: string },
): Promise<{ store: Store; apiKey: string }> => {
  const name = input.name.trim();
  if (!name) throw new Error('A store needs a name');
  const { apiKey, keyHash, keyCipher } = await sealedKey(deps);
  const store: Store = {
    storeId: newId('st'),
    name,
    type: input.type,
    keyHash,
    keyCipher,
    createdAt: deps.clock.now(),
    ...(input.mainAccountId ? { mainAccountId: input.mainAccountId } : {}),
  };
  await deps.stores.create(store);
  return { store, apiKey };
};

/** Replaces a store's key: the old one stops working (warm functions may accept it until their auth cache expires). */
export const rotateStoreKey = async (deps: StoreAdminDeps, storeId: string): Promise<{ apiKey: string }> => {
  const store = await deps.stores.get(storeId);
  if (!store) throw new Error(`No store ${storeId}`);
  const { apiKey, keyHash, keyCipher } = await sealedKey(deps);
  await deps.stores.replaceKey(storeId, store.keyHash, { keyHash, keyCipher });
  return { apiKey };
};

/** The store's current key in clear (webhook signing needs it; the local runtime prints the demo store's). */
export const revealStoreKey = async (deps: StoreAdminDeps, storeId: string): Promise<string | undefined> => {
  const store = await deps.stores.get(storeId);
  return store ? decryptApiKey(store.keyCipher, await deps.masterKey()) : undefined;
};

/**
 * A browser origin as CORS compares it: `scheme://host[:port]`, lower case, no path. Anything else (a path, a
 * wildcard, another scheme) is refused with the reason.
 */
export const parseOrigin = (raw: string): string => {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new Error(`Not an origin: ${raw} (expected https://shop.example)`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`Not an http(s) origin: ${raw}`);
  if (url.origin.toLowerCase() !== raw.trim().toLowerCase().replace(/\/$/, '')) {
    throw new Error(`An origin has no path, query or credentials: ${raw} (expected ${url.origin})`);
  }
  return url.origin.toLowerCase();
};

/**
 * Issues the store's publishable key (`pk_…`) for its storefront's pages, or only sets the origins they are served
 * from. `rotate` (or no key yet) makes a new key: the previous one stops working within the auth cache period.
 */
export const issuePublishableKey = async (
  deps: StoreAdminDeps,
  storeId: string,
  input: { readonly origins?: readonly string[]; readonly linkHosts?: readonly string[]; readonly rotate?: boolean },
): Promise<{ publishableKey: string; allowedOrigins: readonly string[]; linkHosts: readonly string[] }> => {
  const store = await deps.stores.get(storeId);
  if (!store) throw new Error(`No store ${storeId}`);
  const allowedOrigins = input.origins ? [...new Set(input.origins.map(parseOrigin))] : (store.allowedOrigins ?? []);
  const linkHosts = input.linkHosts ? [...new Set(input.linkHosts.map(parseLinkHost))] : (store.linkHosts ?? []);
  const fresh = input.rotate || !store.publishableKey ? generatePublishableKey() : undefined;
  await deps.stores.setPublishableKey(storeId, {
    ...(fresh
      ? {
          key: {
            value: fresh,
            hash: hashApiKey(fresh),
            ...(store.publishableKeyHash ? { replaces: store.publishableKeyHash } : {}),
          },
        }
      : {}),
    allowedOrigins,
    linkHosts,
  });
  return { publishableKey: fresh ?? (store.publishableKey as string), allowedOrigins, linkHosts };
};

/**
 * Sets a store's own daily cap on marketing email (a big sender with a clean list may get more than the deployment's
 * default, a new one less), or with `undefined` returns it to the deployment's. Functions see it within a minute.
 */
export const setStoreDailySendCap = async (
  deps: StoreAdminDeps,
  storeId: string,
  cap: number | undefined,
): Promise<void> => {
  if (cap !== undefined && (!Number.isInteger(cap) || cap < 0)) {
    throw new Error(`A daily cap is a whole number of emails, 0 for none: ${cap}`);
  }
  if (!(await deps.stores.get(storeId))) throw new Error(`No store ${storeId}`);
  await deps.stores.setDailySendCap(storeId, cap);
};

/** Longest influence window a store may choose (attribution marks are kept 90 days). */
export const MAX_INFLUENCE_WINDOW_DAYS = 30;

/** Sets a store's influence window (docs/attribution.md), or with `undefined` returns it to the default. */
export const setStoreInfluenceWindow = async (
  deps: StoreAdminDeps,
  storeId: string,
  days: number | undefined,
): Promise<void> => {
  if (days !== undefined && (!Number.isInteger(days) || days < 1 || days > MAX_INFLUENCE_WINDOW_DAYS)) {
    throw new Error(`An influence window is a whole number of days from 1 to ${MAX_INFLUENCE_WINDOW_DAYS}: ${days}`);
  }
  if (!(await deps.stores.get(storeId))) throw new Error(`No store ${storeId}`);
  await deps.stores.setInfluenceWindow(storeId, days);
};
