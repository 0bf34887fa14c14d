/** Stores: the unit of tenancy. One store is one site; every record belongs to exactly one store. */
import type { SmartSendingSettings } from '#shared/domain/email/smart-sending.ts';

/** `direct` stores integrate through the API; `platform` stores come from a commerce platform (webhook format two). */
export const STORE_TYPES = ['direct', 'platform'] as const;
export type StoreType = (typeof STORE_TYPES)[number];

/** What the request path knows about the caller once its key is verified. */
export interface AuthenticatedStore {
  readonly storeId: string;
  readonly type: StoreType;
  /**
   * Set when the caller used the store's publishable key (`pk_…`, made for browsers), not its secret key: it works on
   * the headless event route only, and from a browser only on the store's allowed origins.
   */
  readonly publishable?: { readonly allowedOrigins: readonly string[]; readonly linkHosts: readonly string[] };
}

export interface Store extends AuthenticatedStore {
  readonly name: string;
  /** SHA-256 (hex) of the current API key. */
  readonly keyHash: string;
  /** The current API key sealed under the master key (see `api-key.ts`). */
  readonly keyCipher: string;
  /** Epoch milliseconds. */
  readonly createdAt: number;
  /** The main account that owns the store (OAuth sign-in: its sub-accounts may open it); none until linked. */
  readonly mainAccountId?: string;
  /**
   * The publishable key (`pk_…`): public by design (it sits in the storefront's pages), so kept in clear, and it can
   * only post headless events. None until the operator issues one.
   */
  readonly publishableKey?: string;
  /** SHA-256 (hex) of the publishable key, its lookup. */
  readonly publishableKeyHash?: string;
  /** The browser origins (`https://shop.example`) whose pages may post headless events with the publishable key. */
  readonly allowedOrigins?: readonly string[];
  /**
   * Hosts beyond the allowed origins' own that links and images sent with the publishable key may name (a CDN such as
   * `cdn.shopify.com`): `publicLinkHosts`.
   */
  readonly linkHosts?: readonly string[];
  /** The store's own daily cap on marketing email, over the deployment's `storeDailySendCap`; 0 for none. */
  readonly dailySendCap?: number;
  /** Days after a click within which a paid order counts as influenced (docs/attribution.md); default 5. */
  readonly influenceWindowDays?: number;
  /** Frequency cap, quiet hours and the store's time zone (docs/smart-sending.md); absent: all off, UTC. */
  readonly smartSending?: SmartSendingSettings;
}
