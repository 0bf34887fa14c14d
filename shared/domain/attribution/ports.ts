/** Ports of the attribution area: what its use cases need from the outside world. Nothing here imports an AWS SDK. */
import type {
  CountsMessage,
  DayCounts,
  Exposure,
  MonthCounts,
  OrderAttribution,
  Touch,
  UnattributedOrder,
} from './model.ts';

export interface AttributionStore {
  /** Remembers that `touch` emailed about a cart or checkout (the latest email about it wins). */
  markSubject(storeId: string, subject: { type: string; id: string }, touch: Touch): Promise<void>;
  /** The latest email about any of these carts or checkouts. */
  latestForSubjects(storeId: string, subjects: readonly { type: string; id: string }[]): Promise<Touch | undefined>;
  /** Remembers the contact's latest click (an earlier one never replaces a later). */
  markClick(storeId: string, email: string, touch: Touch): Promise<void>;
  lastClick(storeId: string, email: string): Promise<Touch | undefined>;
  /**
   * Remembers that the contact entered a flow with A/B groups (`Exposure`): their orders within the window are
   * measured for the run's group. One per contact and flow: a later run of the flow replaces it.
   */
  markExposure(storeId: string, email: string, exposure: Exposure): Promise<void>;
  /** The contact's exposures, one per flow. */
  exposuresOf(storeId: string, email: string): Promise<Exposure[]>;
  /**
   * Adds an order's `amount` to the run's revenue in `currency` on its exposure, atomically, and answers the run's
   * revenue in that currency before it (for the group's sum of squares); undefined when the exposure is now another
   * run's (nothing added).
   */
  addExposureRevenue(
    storeId: string,
    email: string,
    exposure: Pick<Exposure, 'flowId' | 'runId'>,
    currency: string,
    amount: number,
  ): Promise<number | undefined>;
  /** Records the order's attribution once: false when it was decided before (a redelivered event). */
  claimOrder(storeId: string, orderId: string, attribution: OrderAttribution): Promise<boolean>;
  /**
   * Remembers an order of the contact that was paid with nothing to credit (`LATE_CLICK_MS`: kept that long after its
   * payment, when a late click may still influence it).
   */
  markUnattributed(storeId: string, email: string, order: UnattributedOrder): Promise<void>;
  /** The contact's orders paid unattributed within the last `LATE_CLICK_MS`. */
  unattributedOrders(storeId: string, email: string): Promise<UnattributedOrder[]>;
  /**
   * Changes an order decided `none` to `attribution`, once: false when the order was not decided `none` (decided
   * otherwise, reconsidered before, or not decided yet).
   */
  reconsiderOrder(storeId: string, orderId: string, attribution: OrderAttribution): Promise<boolean>;
  /** Records that an occurrence (a click event) was counted: false when it was before. */
  claimOnce(storeId: string, key: string): Promise<boolean>;
  /** Adds to one counter item: a scope's day (`YYYY-MM-DD`) or month (`YYYY-MM`), alone (one write). */
  addTo(storeId: string, scope: string, period: string, deltas: Readonly<Record<string, number>>): Promise<void>;
  /** Adds to the counters of each scope for `day`, and for its month when the scope keeps months (`keepsMonths`). */
  add(storeId: string, scopes: readonly string[], day: string, deltas: Readonly<Record<string, number>>): Promise<void>;
  /** The counters of a scope for the days within [from, to] (`YYYY-MM-DD`) that have any. */
  days(storeId: string, scope: string, from: string, to: string): Promise<DayCounts[]>;
  /** The counters of a scope for the months within [from, to] (`YYYY-MM`) that have any. */
  months(storeId: string, scope: string, from: string, to: string): Promise<MonthCounts[]>;
  /**
   * The counters of each scope for exactly its days and months (at most 100 in all: one batch read), those that have
   * any, by scope.
   */
  periods(
    storeId: string,
    wanted: readonly { readonly scope: string; readonly days: readonly string[]; readonly months: readonly string[] }[],
  ): Promise<Map<string, { days: DayCounts[]; months: MonthCounts[] }>>;
  /**
   * Whether the store's month counters hold every count of their days: stores created since months are kept, older
   * ones once `npm run admin -- store rollup-stats` has rebuilt them. Until then ranges are read from the days alone.
   */
  monthsKept(storeId: string): Promise<boolean>;
  /** Removes every counter of a scope (days and months). */
  deleteScope(storeId: string, scope: string): Promise<void>;
  /** Rewrites the month counters of each scope from its days, then marks the store's months kept. */
  rebuildMonths(storeId: string, scopes: readonly string[]): Promise<void>;
}

/** The counters queue (`queued-counts.ts`): where the hot paths' batches send their counts. */
export interface CountsQueue {
  send(message: CountsMessage): Promise<void>;
}

/** The counters worker's claims: one per counts message, so a message delivered or sent twice counts once. */
export interface CountsClaims {
  /** Records that the message `id` is being counted: false when it was before. */
  claim(id: string): Promise<boolean>;
}
