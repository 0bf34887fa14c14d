/** Ports of the contacts area: what its use cases need from the outside world. Nothing here imports an AWS SDK. */
import type { Customer } from '#shared/domain/customers/model.ts';

/** A store's contacts by email address (one person may be several contacts); unsubscribe and suppression use it. */
export interface ContactsByEmail {
  /** Every contact of the store with this address, compared case-insensitively. */
  find(storeId: string, email: string): Promise<Customer[]>;
}
