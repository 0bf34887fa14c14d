/**
 * Flow definitions: what a store configures in advance ("created and enabled in advance", spec general interface rule 5).
 * A trigger of the flow's kind starts a run when the entry conditions hold and the re-entry policy allows; the run walks
 * the ordered steps (wait, email, exit_if). Types only; validation lives with the flows API, evaluation with the engine.
 */
import type { FlowKind } from './trigger.ts';

export const CONDITION_OPERATORS = [
  'equals',
  'not_equals',
  'greater_than',
  'less_than',
  'contains',
  'exists',
  'not_exists',
] as const;
export type ConditionOperator = (typeof CONDITION_OPERATORS)[number];

/**
 * One test. `field` is a dotted path rooted at `event` (the trigger's data: order total, status, cart lines…), `contact`
 * (country, tags, category tags, consent, order count…), `custom` (`flow/notify`'s custom data) or `activity` (what
 * happened since the trigger, e.g. `activity.order_paid_since_trigger`). The engine documents every field it knows.
 */
export interface Condition {
  readonly field: string;
  readonly op: ConditionOperator;
  /** Absent for `exists` / `not_exists`. */
  readonly value?: string | number | boolean;
}

/** `all` (and) or `any` (or) over conditions and nested groups. */
export interface ConditionGroup {
  readonly match: 'all' | 'any';
  readonly conditions: readonly (Condition | ConditionGroup)[];
}

export type ReentryPolicy =
  /** A contact enters the flow at most once, ever. */
  | { readonly type: 'once_per_contact' }
  /** At most one run per subject (a cart, a checkout, an order, a product…). */
  | { readonly type: 'once_per_subject' }
  /** A contact may enter again once `seconds` have passed since their last entry. */
  | { readonly type: 'cooldown'; readonly seconds: number };

/**
 * Whose email the flow may send. `subscribed` (the default for marketing flows): only contacts whose email consent is
 * subscribed. `not_unsubscribed`: anyone who has not unsubscribed. `transactional`: messages the customer asked for
 * (order messages, back-in-stock notices); consent is not required, suppression still applies.
 */
export type ConsentRequirement = 'subscribed' | 'not_unsubscribed' | 'transactional';

/** A step that runs inside a split's branch: any step but another split (splits do not nest). */
export type BranchStep =
  | { readonly type: 'wait'; readonly id: string; readonly seconds: number }
  | {
      readonly type: 'email';
      readonly id: string;
      readonly from: { readonly email: string; readonly name?: string };
      readonly replyTo?: string;
      /** LiquidJS templates (subject, preheader, html, text); at least one of html and text. */
      readonly subject: string;
      readonly preheader?: string;
      readonly html?: string;
      readonly text?: string;
    }
  | { readonly type: 'exit_if'; readonly id: string; readonly condition: ConditionGroup };

/** One way out of a split: the share of runs it takes (whole percent) and the steps those runs walk. */
export interface SplitBranch {
  readonly id: string;
  readonly percent: number;
  readonly steps: readonly BranchStep[];
}

/**
 * An A/B split (docs/flows.md "A/B splits and holdout"): each run takes one branch, chosen by a hash of (flow, split,
 * contact), so one contact always takes the same branch. It is the flow's last step: a branch is the rest of its runs.
 */
export interface SplitStep {
  readonly type: 'split';
  readonly id: string;
  readonly branches: readonly SplitBranch[];
}

export type FlowStep = BranchStep | SplitStep;

export interface Flow {
  readonly storeId: string;
  readonly id: string;
  readonly name: string;
  readonly trigger: FlowKind;
  readonly enabled: boolean;
  /** Absent: every trigger of the kind enters. */
  readonly entry?: ConditionGroup;
  readonly reentry: ReentryPolicy;
  readonly consent: ConsentRequirement;
  readonly steps: readonly FlowStep[];
  /** `segment_entered` / `segment_exited` flows: the segment whose changes start it (and only those). */
  readonly segmentId?: string;
  /**
   * Percent (0–50) of the runs that enter and then send nothing: the holdout group, measured like the others (its
   * contacts' orders after entry) so a split's branches can be compared with doing nothing. Absent: 0.
   */
  readonly holdoutPercent?: number;
  /**
   * What a marketing email of the flow does when the store's frequency cap holds it back (docs/smart-sending.md):
   * `skip` (the default) ends the run `frequency_cap`; `wait` defers it until the cap allows it.
   */
  readonly onFrequencyCap?: 'skip' | 'wait';
  /** The preset it was created from, if any. */
  readonly preset?: string;
  /** Epoch milliseconds. */
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly revision: number;
}
