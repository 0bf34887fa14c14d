/** Stores: the unit of tenancy. One store is one site; every record belongs to exactly one store. */

/** `direct` stores integrate through the API; `platform` stores come from a commerce platform (webhook format two). */
export const STORE_TYPES = ['direct', 'platform'] as const;
export type StoreType = (typeof STORE_TYPES)[number];

/** What the request path knows about the caller once its key is verified. */
export interface AuthenticatedStore {
  readonly storeId: string;
  readonly type: StoreType;
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
}
