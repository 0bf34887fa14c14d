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
    this.onSave?.(record);
  }

  /** Told of every record the replay writes (an index kept beside, e.g. contacts by address). */
  onSave?: (record: T) => void;

  /**
   * Starts reading the live record of `key` now, so that the replay finds it read when it needs it (a failed read is
   * reported then, not now).
   */
  prefetch(storeId: string, key: string): void {
    if (this.#items.has(key) || this.#live.has(key)) return;
    this.get(storeId, key).catch(() => undefined);
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
  /**
   * Every contact of the store, read in pages, when it has at most `max` of them (else undefined): one read of the
   * store's contacts instead of one per address the period names (docs/backtest.md "Cost").
   */
  readonly allContacts?: (storeId: string, max: number) => Promise<readonly Customer[] | undefined>;
}

/** Contacts read at once, when the store has at most this many (a 2 GB function holds them easily). */
export const BULK_CONTACTS_MAX = 100_000;

/** The live contact reads served from the store's contacts read at once. */
export const contactsInMemory = (all: readonly Customer[]): Pick<LiveRecords, 'customers' | 'contacts'> => {
  const byOrigin = new Map(all.map((c) => [c.originId, c]));
  const byEmail = new Map<string, Customer[]>();
  for (const c of all) {
    const address = c.email?.toLowerCase();
    if (address) byEmail.set(address, [...(byEmail.get(address) ?? []), c]);
  }
  return {
    customers: { get: async (_storeId, originId) => byOrigin.get(originId) },
    contacts: { find: async (_storeId, email) => byEmail.get(email.toLowerCase()) ?? [] },
  };
};

/** The store's contacts page by page (`ContactDirectory.page`), or undefined once there are more than `max`. */
export const contactsUpTo = async (
  page: (after: unknown) => Promise<{ items: readonly Customer[]; next?: unknown }>,
  max: number,
): Promise<readonly Customer[] | undefined> => {
  const all: Customer[] = [];
  let after: unknown;
  do {
    const read = await page(after);
    all.push(...read.items);
    if (all.length > max) return undefined;
    after = read.next;
  } while (after !== undefined);
  return all;
};

/**
 * Contacts by address: the replay's own, then the live ones it has not rewritten (the live list read once per
 * address). `prefetch` starts an address's live read ahead of need (failures surface when it is needed).
 */
export const simContacts = (customers: SimRepository<Customer>, live: ContactsByEmail) => {
  const liveByEmail = new Map<string, Promise<Customer[]>>();
  /** The replay's own contacts by address (originId → latest record). */
  const own = new Map<string, Map<string, Customer>>();
  const previous = new Map<string, string>();
  customers.onSave = (customer) => {
    const before = previous.get(customer.originId);
    if (before !== undefined) own.get(before)?.delete(customer.originId);
    const address = customer.email?.toLowerCase();
    if (address === undefined) {
      previous.delete(customer.originId);
      return;
    }
    previous.set(customer.originId, address);
    own.set(address, (own.get(address) ?? new Map()).set(customer.originId, customer));
  };
  const liveOf = (storeId: string, address: string) => {
    let known = liveByEmail.get(address);
    if (!known) {
      known = live.find(storeId, address);
      liveByEmail.set(address, known);
    }
    return known;
  };
  const contacts: ContactsByEmail & { prefetch(storeId: string, email: string): void } = {
    async find(storeId, email) {
      const address = email.toLowerCase();
      const known = await liveOf(storeId, address);
      const mine = [...(own.get(address)?.values() ?? [])];
      const rewritten = new Set(mine.map((c) => c.originId));
      return [...mine, ...known.filter((c) => !rewritten.has(c.originId))];
    },
    prefetch(storeId, email) {
      liveOf(storeId, email.toLowerCase()).catch(() => undefined);
    },
  };
  return contacts;
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
    remove: async (removed) => {
      for (const subscription of removed) subscriptions.delete(keyOf(subscription));
    },
  };
};
