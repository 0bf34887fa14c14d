/**
 * The flow definition's limits and the defaults a definition may leave out (consent and re-entry per trigger kind): the
 * numbers the schema (`flow-schema.ts`), the API description and the console all quote.
 */
import type { ConsentRequirement, ReentryPolicy } from './flow.ts';
import type { FlowKind } from './trigger.ts';

export const FLOW_RULES = {
  nameMaxChars: 100,
  steps: { min: 1, max: 20 },
  /** Wait steps: one minute to 90 days (EventBridge Scheduler `at()` schedules; longer is not a flow, it is a campaign). */
  waitSeconds: { min: 60, max: 90 * 24 * 3600 },
  /** Re-entry cool-down: one minute to one year. */
  cooldownSeconds: { min: 60, max: 365 * 24 * 3600 },
  /** Condition groups nest at most this deep (the entry group is level 1). */
  groupDepth: 3,
  conditionsPerGroup: 20,
  fieldMaxChars: 200,
  valueMaxChars: 500,
  subjectMaxChars: 500,
  preheaderMaxChars: 500,
  fromNameMaxChars: 100,
  stepIdMaxChars: 40,
  /**
   * A/B splits (docs/flows.md "A/B splits and holdout"): 2–5 branches of whole percents adding up to 100, each with
   * 1–20 steps; the flow's steps, counted with those in its branches, stay within `steps.max`.
   */
  split: { branches: { min: 2, max: 5 }, branchPercent: { min: 1, max: 99 } },
  /** The holdout group's share of entering runs: up to half, so a flow always mails most of its runs. */
  holdoutPercent: { min: 0, max: 50 },
} as const;

/** Condition fields: a root (`event`, `contact`, `custom`, `activity`) and a dotted path. */
export const CONDITION_FIELD = /^(event|contact|custom|activity)\.[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$/;

/**
 * Marketing kinds mail only with consent (`subscribed` by default, `not_unsubscribed` on request); the kinds whose
 * messages the customer asked for (an order, a restock notice) default to `transactional`. A custom notification may be
 * either, so the merchant decides; it defaults to the safe side, `subscribed`.
 */
export const DEFAULT_CONSENT: Record<FlowKind, ConsentRequirement> = {
  customer_created: 'subscribed',
  subscription_welcome: 'subscribed',
  abandoned_cart: 'subscribed',
  checkout_recovery: 'subscribed',
  browse_recovery: 'subscribed',
  order_paid: 'transactional',
  order_fulfilled: 'transactional',
  order_status_changed: 'transactional',
  order_refunded: 'transactional',
  back_in_stock: 'transactional',
  custom_notification: 'subscribed',
  segment_entered: 'subscribed',
  segment_exited: 'subscribed',
};

/** Kinds that may be `transactional`: the customer asked for these messages. Recovery and welcome mail is marketing. */
export const TRANSACTIONAL_KINDS: ReadonlySet<FlowKind> = new Set([
  'order_paid',
  'order_fulfilled',
  'order_status_changed',
  'order_refunded',
  'back_in_stock',
  'custom_notification',
]);

/**
 * Re-entry when the definition gives none. The engine keys `once_per_subject` by the subject alone, so it fits kinds
 * whose subject belongs to one person (a cart, a checkout, an order); kinds whose subject is shared (a product, the
 * flow itself for `flow/notify`) or that repeat for one order (status changes) use a cool-down per contact instead.
 */
export const DEFAULT_REENTRY: Record<FlowKind, ReentryPolicy> = {
  customer_created: { type: 'once_per_contact' },
  subscription_welcome: { type: 'once_per_contact' },
  abandoned_cart: { type: 'once_per_subject' },
  checkout_recovery: { type: 'once_per_subject' },
  browse_recovery: { type: 'cooldown', seconds: 7 * 24 * 3600 },
  order_paid: { type: 'once_per_subject' },
  order_fulfilled: { type: 'once_per_subject' },
  order_status_changed: { type: 'cooldown', seconds: 60 },
  order_refunded: { type: 'once_per_subject' },
  back_in_stock: { type: 'cooldown', seconds: 60 },
  custom_notification: { type: 'cooldown', seconds: 60 },
  // A contact enters a segment flow the first time they join (or leave) its segment, as the hosted tools do; a
  // cool-down lets them in again on a later change.
  segment_entered: { type: 'once_per_contact' },
  segment_exited: { type: 'once_per_contact' },
};
