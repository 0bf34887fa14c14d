/**
 * Every preset, one per flow kind, so a new store gets a working flow of any kind in one call; the segment kinds have
 * none (a segment flow names a segment of the store, which a preset cannot know).
 */
import type { FlowKind, SegmentFlowKind } from '#shared/domain/flows/trigger.ts';
import { backInStock, customerCreated, customNotification, subscriptionWelcome } from './contacts.ts';
import { orderFulfilled, orderPaid, orderRefunded, orderStatusChanged } from './orders.ts';
import type { FlowPreset } from './preset.ts';
import { abandonedCart, browseRecovery, checkoutRecovery } from './recovery.ts';

export { buildSteps, type FlowPreset, ORDER_PAID_SINCE_TRIGGER, type Sender } from './preset.ts';

export const PRESETS: Readonly<Record<Exclude<FlowKind, SegmentFlowKind>, FlowPreset>> = {
  customer_created: customerCreated,
  order_paid: orderPaid,
  order_fulfilled: orderFulfilled,
  order_status_changed: orderStatusChanged,
  order_refunded: orderRefunded,
  abandoned_cart: abandonedCart,
  checkout_recovery: checkoutRecovery,
  browse_recovery: browseRecovery,
  subscription_welcome: subscriptionWelcome,
  back_in_stock: backInStock,
  custom_notification: customNotification,
};

/** The preset list as the API shows it: what each does, when it mails, and to whom. */
export const presetSummaries = () =>
  Object.values(PRESETS).map((preset) => ({
    preset: preset.trigger,
    trigger: preset.trigger,
    name: preset.name,
    description: preset.description,
    consent: preset.consent,
    reentry: preset.reentry,
    steps: preset.steps.map((step) =>
      step.type === 'wait'
        ? { type: step.type, id: step.id, seconds: step.seconds }
        : step.type === 'email'
          ? { type: step.type, id: step.id, subject: step.subject }
          : step.type === 'exit_if'
            ? { type: step.type, id: step.id, condition: step.condition }
            : { type: step.type, id: step.id, branches: step.branches },
    ),
  }));
