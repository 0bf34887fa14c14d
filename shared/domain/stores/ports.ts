/** Ports of the stores area: what its use cases need from the outside world. Nothing here imports an AWS SDK. */
import type { SmartSendingSettings } from '#shared/domain/email/smart-sending.ts';
import type { AuthenticatedStore, Store } from './model.ts';

export interface StoreRepository {
  /** The store whose current key has this SHA-256, if any (a replaced key finds nothing). */
  findByKeyHash(keyHash: string): Promise<AuthenticatedStore | undefined>;
  get(storeId: string): Promise<Store | undefined>;
  create(store: Store): Promise<void>;
  /** Swaps the key: the old hash stops authenticating; fails if the store's key changed meanwhile. */
  replaceKey(storeId: string, oldKeyHash: string, next: { keyHash: string; keyCipher: string }): Promise<void>;
  list(): Promise<Store[]>;
  /**
   * Sets the store's publishable key and allowed origins: a new key replaces the old one (which stops authenticating),
   * `key` undefined keeps the current key and changes only the origins.
   */
  /** Sets the store's own daily cap on marketing email, or (undefined) goes back to the deployment's. */
  setDailySendCap(storeId: string, cap: number | undefined): Promise<void>;
  /** Replaces the store's smart-sending settings (frequency cap, quiet hours, time zone). */
  setSmartSending(storeId: string, settings: SmartSendingSettings): Promise<void>;
  /** Sets the store's own influence window in days, or (undefined) goes back to the default. */
  setInfluenceWindow(storeId: string, days: number | undefined): Promise<void>;
  setPublishableKey(
    storeId: string,
    next: {
      /** A new key, and the hash of the one it replaces (whose lookup item goes). */
      readonly key?: { readonly value: string; readonly hash: string; readonly replaces?: string };
      readonly allowedOrigins: readonly string[];
      readonly linkHosts: readonly string[];
    },
  ): Promise<void>;
}

export interface RateLimiter {
  /** Counts one request against `limit` per second for `key`; shared by every concurrent instance. */
  take(key: string, limit: number): Promise<{ allowed: true } | { allowed: false; retryAfterSeconds: number }>;
  /**
   * True when this instance already saw `key`'s current window full: no I/O, so a flood is refused without touching
   * the table. False means "unknown", not "allowed".
   */
  isSaturated(key: string): boolean;
}
