/** What a preset is: a ready flow of one kind, whose email steps get the store's sender when it is created. */
import type { ConditionGroup, ConsentRequirement, FlowStep, ReentryPolicy } from '#shared/domain/flows/flow.ts';
import type { FlowKind } from '#shared/domain/flows/trigger.ts';

/** The create request's sender; absent (or `undefined`) fields are left off the steps. */
export interface Sender {
  readonly from: { readonly email: string; readonly name?: string | undefined };
  readonly replyTo?: string | undefined;
}

/** An email step's content; the sender comes from the create request. */
export interface EmailContent {
  readonly id: string;
  readonly subject: string;
  readonly preheader: string;
  readonly html: string;
  readonly text: string;
}

/** A preset step: a wait or an exit as stored, or email content that `buildSteps` completes with the sender. */
export type PresetStep = Exclude<FlowStep, { type: 'email' }> | ({ readonly type: 'email' } & EmailContent);

export interface FlowPreset {
  /** The flow's trigger kind, which is also the preset's name in the API (`{preset: "abandoned_cart"}`). */
  readonly trigger: FlowKind;
  readonly name: string;
  readonly description: string;
  readonly entry?: ConditionGroup;
  readonly reentry: ReentryPolicy;
  readonly consent: ConsentRequirement;
  readonly steps: readonly PresetStep[];
}

/** The preset's steps with the sender on every email. */
export const buildSteps = (preset: FlowPreset, sender: Sender): FlowStep[] =>
  preset.steps.map((step) =>
    step.type === 'email'
      ? {
          ...step,
          from:
            sender.from.name === undefined
              ? { email: sender.from.email }
              : { email: sender.from.email, name: sender.from.name },
          ...(sender.replyTo === undefined ? {} : { replyTo: sender.replyTo }),
        }
      : step,
  );

/** "An order was paid since the trigger" (the flow engine evaluates `activity.*`). */
export const ORDER_PAID_SINCE_TRIGGER: ConditionGroup = {
  match: 'all',
  conditions: [{ field: 'activity.order_paid_since_trigger', op: 'exists' }],
};

export const HOUR = 3600;
export const DAY = 24 * HOUR;
