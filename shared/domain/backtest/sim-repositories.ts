/**
 * The backtest's world of records: in memory, written only by the replay. Carts, checkouts, orders and back-in-stock
 * subscriptions start empty (the replay builds them from the period's events); customers and products read through
 * to the store's live records (read once, never written), because a contact's consent or a product's image was
 * usually sent long before the period. docs/backtest.md "What the replay knows".
 */
import type { BackInStockSubscription } from '#shared/domain/back-in-stock/model.ts';
import type { BackInStockRepository } from '#shared/domain/back-in-stock/ports.ts';
import type { ContactsByEmail } from '#shared/domain/contacts/ports.ts';
import type { Customer } from '#shared/domain/customers/model.ts';
import type { Product } from '#shared/domain/products/model.ts';
import { RevisionConflict } from '#shared/domain/repository.ts';

interface Revisioned {
  readonly storeId: string;
  readonly revision: number;
}

/** A keyed store with the `Repository` revision rule; `live` is read (once per key) for keys the replay never wrote. */
export class SimRepository<T extends Revisioned> {
  readonly #items = new Map<string, T>();
  readonly #live = new Map<string, Promise<T | undefined>>();
  readonly #keyOf: (record: T) => string;
  readonly #read: ((storeId: string, key: string) => Promise<T | undefined>) | undefined;

  constructor(keyOf: (record: T) => string, live?: (storeId: string, key: string) => Promise<T | undefined>) {
    this.#keyOf = keyOf;
    this.#read = live;
  }

  async get(storeId: string, key: string): Promise<T | undefined> {
    const own = this.#items.get(key);
    if (own || !this.#read) return own;
    let live = this.#live.get(key);
    if (!live) {
      live = this.#read(storeId, key);
      this.#live.set(key, live);
    }
    return live;
  }

  async save(record: T, expectedRevision: number): Promise<void> {
    const current = await this.get(record.storeId, this.#keyOf(record));
    if ((current?.revision ?? 0) !== expectedRevision) throw new RevisionConflict(`record ${this.#keyOf(record)}`);
    this.#items.set(this.#keyOf(record), record);
  }

  /** The records the replay wrote. */
  written(): IterableIterator<T> {
    return this.#items.values();
  }
}

/** What the replay reads of the live store (read-only). */
export interface LiveRecords {
  readonly customers: { get(storeId: string, originId: string): Promise<Customer | undefined> };
  readonly contacts: ContactsByEmail;
  readonly products: { get(storeId: string, productId: string): Promise<Product | undefined> };
}

/** Contacts by address: the replay's own, then the live ones it has not rewritten (the live list read once per address). */
export const simContacts = (customers: SimRepository<Customer>, live: ContactsByEmail): ContactsByEmail => {
  const liveByEmail = new Map<string, Promise<Customer[]>>();
  return {
    async find(storeId, email) {
      const address = email.toLowerCase();
      let known = liveByEmail.get(address);
      if (!known) {
        known = live.find(storeId, address);
        liveByEmail.set(address, known);
      }
      const own = [...customers.written()].filter((c) => c.email?.toLowerCase() === address);
      const rewritten = new Set(own.map((c) => c.originId));
      return [...own, ...(await known).filter((c) => !rewritten.has(c.originId))];
    },
  };
};

/** Back-in-stock subscriptions made within the period. */
export const simBackInStock = (): BackInStockRepository => {
  const subscriptions = new Map<string, BackInStockSubscription>();
  const keyOf = (s: BackInStockSubscription) => JSON.stringify([s.productId, s.variantId, s.email, s.phone]);
  return {
    subscribe: async (subscription) => {
      subscriptions.set(keyOf(subscription), subscription);
    },
    listForProduct: async (_storeId, productId) => [...subscriptions.values()].filter((s) => s.productId === productId),
    remove: async (subscription) => {
      subscriptions.delete(keyOf(subscription));
    },
  };
};
