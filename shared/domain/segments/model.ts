/**
 * Segments: a condition group in the flows' condition language over a store's contacts, kept current as
 * events change them. Types and pure helpers only; docs/segments.md is the user-facing account.
 */
import type { ConditionGroup } from '#shared/domain/flows/flow.ts';

export interface Segment {
  readonly storeId: string;
  /** `seg_` and 20 letters and digits. */
  readonly id: string;
  readonly name: string;
  readonly conditions: ConditionGroup;
  /** Epoch milliseconds. */
  readonly createdAt: number;
  readonly updatedAt: number;
  /** Each save adds one; a change of `conditions` starts a build of that revision. */
  readonly revision: number;
}

export type BuildStatus = 'building' | 'ready';

/**
 * What changes without the definition: the live member count (atomic `ADD` on each enter and exit) and the progress
 * of the background pass that computes the initial membership of a new or edited definition.
 */
export interface SegmentState {
  readonly members: number;
  readonly build: {
    /** The definition revision the pass evaluates; a pass of an older revision stops. */
    readonly revision: number;
    readonly status: BuildStatus;
    /** Contacts evaluated so far. */
    readonly scanned: number;
    readonly startedAt: number;
    readonly finishedAt?: number;
  };
}

export interface SegmentMember {
  /** The customer's id in the store's system (`originId`), the key of the contact. */
  readonly customerId: string;
  /** The address when the contact entered (lower-cased): what a campaign pages through. */
  readonly email?: string;
  /** Epoch milliseconds. */
  readonly enteredAt: number;
}

/** One order as the segment facts count it. */
export interface OrderFact {
  /** `total_price` as a number (0 when not a number). */
  readonly total: number;
  /** When it was placed: its `created_at`, else when Storeflow first saw it (epoch ms). */
  readonly at: number;
  /** False for a cancelled, voided or refunded order: it counts neither as placed nor as spent. */
  readonly counted: boolean;
}

/** The orders and email engagement of one contact: what `contact.total_spent` and `activity.days_since_*` read. */
export interface ContactStats {
  readonly storeId: string;
  readonly customerId: string;
  /** By order id, the latest `ORDERS_KEPT` orders; older ones are summed in `folded`. */
  readonly orders: Readonly<Record<string, OrderFact>>;
  readonly folded?: { readonly count: number; readonly total: number; readonly lastAt?: number };
  /** Epoch ms of the contact's latest first open / click of a Storeflow email. */
  readonly lastOpenAt?: number;
  readonly lastClickAt?: number;
  readonly revision: number;
}

/** Orders kept one by one on a contact's stats (a status change of an older one no longer changes the totals). */
export const ORDERS_KEPT = 500;

const NOT_SPENT = new Set(['cancelled', 'voided', 'refunded']);

/** The fact of an order from its stored fields; `firstSeen` when it carries no `created_at`. */
export const orderFact = (
  order: { status?: string; details: Readonly<Record<string, unknown>> },
  firstSeen: number,
) => {
  const total = Number(order.details.total_price);
  const created = Number(order.details.created_at);
  // created_at in seconds, or milliseconds (as customers' created_at may be).
  const at = Number.isFinite(created) && created > 0 ? (created < 1e12 ? created * 1000 : created) : firstSeen;
  return {
    total: Number.isFinite(total) ? total : 0,
    at,
    counted: !NOT_SPENT.has(String(order.status ?? '').toLowerCase()),
  } satisfies OrderFact;
};

/** The stats after an order was written: the order set (or replaced), the oldest folded beyond `ORDERS_KEPT`. */
export const withOrder = (stats: ContactStats, orderId: string, fact: OrderFact): ContactStats => {
  const orders: Record<string, OrderFact> = { ...stats.orders, [orderId]: fact };
  let folded = stats.folded;
  const ids = Object.keys(orders);
  if (ids.length > ORDERS_KEPT) {
    const oldest = ids.sort((a, b) => (orders[a]?.at ?? 0) - (orders[b]?.at ?? 0)).slice(0, ids.length - ORDERS_KEPT);
    for (const id of oldest) {
      const gone = orders[id];
      delete orders[id];
      if (!gone?.counted) continue;
      folded = {
        count: (folded?.count ?? 0) + 1,
        total: (folded?.total ?? 0) + gone.total,
        lastAt: Math.max(folded?.lastAt ?? 0, gone.at),
      };
    }
  }
  return { ...stats, orders, ...(folded ? { folded } : {}) };
};

/** Orders placed (not cancelled, voided or refunded), what they total, and the latest one's time. */
export const orderTotals = (stats: ContactStats | undefined) => {
  let count = stats?.folded?.count ?? 0;
  let total = stats?.folded?.total ?? 0;
  let lastAt = stats?.folded?.lastAt;
  for (const order of Object.values(stats?.orders ?? {})) {
    if (!order.counted) continue;
    count++;
    total += order.total;
    lastAt = Math.max(lastAt ?? 0, order.at);
  }
  return { count, total: Math.round(total * 100) / 100, lastAt };
};

export const emptyStats = (storeId: string, customerId: string): ContactStats => ({
  storeId,
  customerId,
  orders: {},
  revision: 0,
});
