/** In-memory doubles for the backtest: the event history, and the live records a replay reads. */
import type { BacktestDeps } from '#shared/domain/backtest/backtest.ts';
import type { Customer } from '#shared/domain/customers/model.ts';
import type { SmartSendingSettings } from '#shared/domain/email/smart-sending.ts';
import type { Flow } from '#shared/domain/flows/flow.ts';
import type { EventHistory, HistoryEvent } from '#shared/domain/ingest/event-history.ts';
import { historyDay } from '#shared/domain/ingest/event-history.ts';
import { packEvents } from '#shared/domain/ingest/history-pack.ts';
import type { Product } from '#shared/domain/products/model.ts';
import { validationError } from '#shared/errors.ts';

/**
 * The history in memory: events appended one by one, answered as packs of `packSize` events (packed and compressed as
 * the worker writes them), `pageSize` packs a page like the table's 1 MB pages.
 */
export const memoryHistory = (pageSize = 2, packSize = 3) => {
  const events: HistoryEvent[] = [];
  const history: EventHistory & { add(event: HistoryEvent): void } = {
    add(event) {
      events.push(event);
    },
    async put() {
      throw new Error('memoryHistory: add events instead');
    },
    async page(storeId, day, after) {
      const all = events.filter((e) => e.storeId === storeId && historyDay(e.acceptedAt) === day);
      const start = typeof after === 'number' ? after : 0;
      const packs: Uint8Array[] = [];
      for (let i = start; i < Math.min(all.length, start + pageSize * packSize); i += packSize) {
        for (const pack of await packEvents(all.slice(i, i + packSize))) packs.push(pack.bytes);
      }
      const next = start + pageSize * packSize;
      return next < all.length ? { packs, next } : { packs };
    },
  };
  return { events, history };
};

/** A backtest's dependencies: the flows given, the history given, live contacts, products and suppressions in maps. */
export const backtestFakes = (options: { flows?: Flow[]; now?: number; smartSending?: SmartSendingSettings } = {}) => {
  const flows = new Map((options.flows ?? []).map((flow) => [flow.id, flow]));
  const { events, history } = memoryHistory();
  const customers = new Map<string, Customer>();
  /** Contacts by address, indexed on first use (set every contact before the backtest runs). */
  const byEmail = new Map<string, Customer[]>();
  const products = new Map<string, Product>();
  const suppressed = new Set<string>();
  const verifiedDomains = new Set(['shop.example']);
  let wall = options.now ?? 2_000_000_000_000;
  const deps: BacktestDeps = {
    flows: { get: async (_storeId, id) => flows.get(id) },
    history,
    live: {
      customers: { get: async (_storeId, id) => customers.get(id) },
      contacts: {
        find: async (_storeId, email) => {
          if (byEmail.size === 0) {
            for (const c of customers.values()) {
              const address = c.email?.toLowerCase() ?? '';
              byEmail.set(address, [...(byEmail.get(address) ?? []), c]);
            }
          }
          return byEmail.get(email) ?? [];
        },
      },
      products: { get: async (_storeId, id) => products.get(id) },
      stores: {
        get: async (storeId) => ({
          storeId,
          type: 'direct',
          name: 'Test Shop',
          keyHash: 'x',
          keyCipher: 'x',
          createdAt: 1,
          ...(options.smartSending ? { smartSending: options.smartSending } : {}),
        }),
      },
      suppressions: { suppressedAmong: async (_storeId, emails) => new Set(emails.filter((e) => suppressed.has(e))) },
      senders: {
        async requireVerified(_storeId, fromEmail) {
          const domain = fromEmail.slice(fromEmail.lastIndexOf('@') + 1);
          if (!verifiedDomains.has(domain)) throw validationError(`${domain} is not a sending domain`);
        },
      },
      checkoutRecoveryWaitMs: 30 * 60_000,
      sendRatePerSecond: 14,
    },
    clock: { now: () => wall },
  };
  return {
    deps,
    flows,
    events,
    customers,
    products,
    suppressed,
    /** Moves the wall clock on (the time budget). */
    advanceWall: (ms: number) => {
      wall += ms;
    },
  };
};
