/** Ports of the contacts area: what its use cases need from the outside world. Nothing here imports an AWS SDK. */
import type { Customer } from '#shared/domain/customers/model.ts';

/** A store's contacts by email address (one person may be several contacts); unsubscribe and suppression use it. */
export interface ContactsByEmail {
  /** Every contact of the store with this address, compared case-insensitively. */
  find(storeId: string, email: string): Promise<Customer[]>;
}

/** One page of contacts and, when more follow, the opaque cursor of the next. */
export interface ContactPage {
  readonly items: Customer[];
  readonly nextCursor?: string;
}

/**
 * The store's contacts by normalised phone and by name prefix (`contact-search.ts`), from the lookup entries written
 * with each contact. Entries may lag behind a contact changed a moment ago: callers check what they get.
 */
export interface ContactSearchIndex {
  /** Contacts whose phone normalises to `phone`, in customer id order. */
  byPhone(storeId: string, phone: string, page: { limit: number; cursor?: string }): Promise<ContactPage>;
  /** Contacts with a name term (`first last`, `last first`) starting with `prefix`, in name order. */
  byNamePrefix(storeId: string, prefix: string, page: { limit: number; cursor?: string }): Promise<ContactPage>;
  /**
   * Writes the lookup entries of every contact of the store (contacts saved before the search existed); answers how
   * many contacts were read. Idempotent: entries already there are written again unchanged.
   */
  indexStore(storeId: string, progress?: (read: number) => void): Promise<number>;
}
