import { createHash } from 'node:crypto';

/**
 * One-time timers: the cart's one-hour wait and the checkout-recovery wait (spec "States and transitions"), and the
 * wait steps of flow runs.
 */

export interface CartTimerPayload {
  readonly v: 1;
  readonly kind: 'cart';
  readonly storeId: string;
  readonly token: string;
  /** The cart revision the timer was set for: a newer write supersedes it. */
  readonly revision: number;
}

export interface CheckoutTimerPayload {
  readonly v: 1;
  readonly kind: 'checkout';
  readonly storeId: string;
  readonly token: string;
}

/** The end of a flow run's wait step: the flow worker resumes the run (see `flows/engine.ts`). */
export interface FlowTimerPayload {
  readonly v: 1;
  readonly kind: 'flow';
  readonly storeId: string;
  readonly runId: string;
  /** The wait step's id: a timer of an earlier wait of the same run resumes nothing. */
  readonly step: string;
}

/**
 * A contact's segment re-evaluation: a time-window condition ("ordered in the last 30 days") may flip at
 * `at`, so the contact is evaluated again as of then (`shared/domain/segments/membership.ts`).
 */
export interface SegmentTimerPayload {
  readonly v: 1;
  readonly kind: 'segment';
  readonly storeId: string;
  readonly customerId: string;
  /** The flip moment, epoch milliseconds. */
  readonly at: number;
}

/**
 * A scheduled campaign is due (docs/campaigns.md): the campaigns queue starts its walk unless it was cancelled. With a
 * `batchId`, the quiet hours of one of its held send batches ended: the campaigns queue releases that batch.
 */
export interface CampaignTimerPayload {
  readonly v: 1;
  readonly kind: 'campaign';
  readonly storeId: string;
  readonly campaignId: string;
  readonly batchId?: string;
}

/** What the timer wheel keeps in its buckets: flow waits, segment re-evaluations and due campaigns. */
export type WheelPayload = FlowTimerPayload | SegmentTimerPayload | CampaignTimerPayload;

/**
 * A tick of the timer wheel: the one schedule of a store's due minute, releasing every flow wait kept for that minute
 * (see `wheel.ts`).
 */
export interface WheelTickPayload {
  readonly v: 1;
  readonly kind: 'tick';
  readonly storeId: string;
  /** The due minute, epoch milliseconds (a whole minute). */
  readonly minute: number;
}

/**
 * A store's closed UTC day of event history is due for compaction (`shared/domain/ingest/history-compaction.ts`): set by
 * the ingest worker when it writes history of the day, fired a few hours after the day ends.
 */
export interface HistoryCompactionTimerPayload {
  readonly v: 1;
  readonly kind: 'history';
  readonly storeId: string;
  /** The UTC day, `yyyy-mm-dd`. */
  readonly day: string;
}

export type TimerPayload =
  | HistoryCompactionTimerPayload
  | CartTimerPayload
  | CheckoutTimerPayload
  | FlowTimerPayload
  | SegmentTimerPayload
  | CampaignTimerPayload
  | WheelTickPayload;

export interface Timer {
  /** Deterministic per subject, so re-setting moves the one timer instead of adding another. */
  readonly name: string;
  /** Epoch milliseconds. */
  readonly at: number;
  readonly payload: TimerPayload;
}

/** "one hour after the cart write" (Cart lifecycle). */
export const CART_RECOVERY_WAIT_MS = 60 * 60 * 1000;
/** "a wait of at least 30 minutes is advised" (Checkout and order); configurable per deployment. */
export const DEFAULT_CHECKOUT_RECOVERY_WAIT_MINUTES = 30;

/** Scheduler names allow `[0-9a-zA-Z-_.]`, at most 64 characters: the subject is hashed. */
export const timerName = (kind: TimerPayload['kind'], storeId: string, token: string): string =>
  `${kind}-${createHash('sha256').update(`${storeId}\n${token}`).digest('hex').slice(0, 48)}`;
