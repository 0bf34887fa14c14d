/**
 * A timer fired: re-check the subject's state, then start the recovery flow if it still applies.
 *
 * Cart (one hour after the last write): the cart still exists (a checkout or a payment deletes it), was not written
 * since the timer was set (a newer write set a newer timer), the customer has not reached checkout with it, it has
 * lines, flows are not ignored, and an email is known on the cart or its linked customer → abandoned-cart trigger.
 * Checkout (after the recovery wait): no paid order matched its `checkout_token`, and an email is known on the
 * checkout or its customer → checkout-recovery trigger.
 * Flow wait (a run's wait step ended): handed to the flows queue, where the flow worker resumes the run.
 * Wheel tick (a store's due minute): every flow wait of that minute handed to the flows queue (`wheel.ts`).
 * Segment (a contact's time window flipped): handed to the segments queue, which evaluates the contact again.
 * Campaign (a scheduled campaign is due): handed to the campaigns queue, which starts it unless it was cancelled.
 * History (a store's closed day of event history): compacted into as few packs as fit (`history-compaction.ts`).
 */

import type { CartRepository } from '#shared/domain/carts/ports.ts';
import type { CheckoutRepository } from '#shared/domain/checkouts/ports.ts';
import type { Clock } from '#shared/domain/clock.ts';
import type { CustomerRepository } from '#shared/domain/customers/ports.ts';
import type { FlowQueue, FlowTriggers } from '#shared/domain/flows/ports.ts';
import type { FlowKind } from '#shared/domain/flows/trigger.ts';
import {
  type CompactHistoryDeps,
  type CompactionOutcome,
  compactHistoryDay,
} from '#shared/domain/ingest/history-compaction.ts';
import type { CampaignTimerPayload, SegmentTimerPayload, TimerPayload } from './model.ts';
import type { TimerBuckets } from './ports.ts';
import { releaseTick } from './wheel.ts';

export interface FireTimerDeps {
  readonly carts: CartRepository;
  readonly checkouts: CheckoutRepository;
  readonly customers: CustomerRepository;
  readonly triggers: FlowTriggers;
  /** Where a flow run's ended wait goes (the flow worker resumes the run). */
  readonly flowQueue: FlowQueue;
  /** The timer wheel's buckets, released by a tick. */
  readonly buckets: Pick<TimerBuckets, 'due' | 'remove'>;
  /** Segment re-evaluations (a time window flipped): handed to the segments queue. */
  readonly segmentRechecks?: { recheck(timer: SegmentTimerPayload): Promise<void> };
  /** Due campaigns: handed to the campaigns queue. */
  readonly campaignStarts?: { start(timer: CampaignTimerPayload): Promise<void> };
  /** The event history's daily compaction; without it, such timers are dropped. */
  readonly historyCompaction?: CompactHistoryDeps;
  readonly clock: Clock;
}

/** Why a fired timer started nothing (for logs), or the flow it started. */
export type FireOutcome =
  | { readonly started: FlowKind }
  | { readonly skipped: string }
  | { readonly resumed: string }
  | { readonly rechecked: string }
  | { readonly campaign: string }
  | { readonly released: number }
  | { readonly compacted: CompactionOutcome };

export const fireTimer = async (
  deps: FireTimerDeps,
  timer: TimerPayload,
  hasTime?: () => boolean,
): Promise<FireOutcome> => {
  if (timer.kind === 'tick') return { released: await releaseTick(deps, timer, hasTime) };
  if (timer.kind === 'history') {
    if (!deps.historyCompaction) return { skipped: 'no history compaction here' };
    return { compacted: await compactHistoryDay(deps.historyCompaction, timer.storeId, timer.day, hasTime) };
  }
  if (timer.kind === 'segment') {
    await deps.segmentRechecks?.recheck(timer);
    return { rechecked: timer.customerId };
  }
  if (timer.kind === 'campaign') {
    await deps.campaignStarts?.start(timer);
    return { campaign: timer.campaignId };
  }
  if (timer.kind === 'flow') {
    await deps.flowQueue.resume(timer.storeId, timer.runId, timer.step);
    return { resumed: timer.runId };
  }
  if (timer.kind === 'cart') {
    const cart = await deps.carts.get(timer.storeId, timer.token);
    if (!cart) return { skipped: 'cart gone' };
    if (cart.revision !== timer.revision) return { skipped: 'cart written since (or deleted); a newer timer is set' };
    if (cart.closed) return { skipped: `cart deleted by ${cart.closed.by}` };
    if (cart.reachedCheckoutAt !== undefined) return { skipped: 'customer reached checkout' };
    if (cart.lineItems.length === 0) return { skipped: 'cart is empty' };
    if (cart.ignoreFlow) return { skipped: 'ignore_flow' };
    const customer = cart.customerId ? await deps.customers.get(timer.storeId, cart.customerId) : undefined;
    const email = cart.email ?? customer?.email;
    if (!email) return { skipped: 'no email on the cart or its customer' };
    await deps.triggers.fire({
      id: `timer#cart#${timer.token}#${timer.revision}`,
      storeId: timer.storeId,
      kind: 'abandoned_cart',
      subject: { type: 'cart', id: cart.token },
      contact: { email, ...(cart.customerId ? { customerId: cart.customerId } : {}) },
      cause: { timer: `cart#${timer.revision}` },
      ...(cart.publicWrite ? { publicOrigin: true as const } : {}),
      context: {
        cart: {
          token: cart.token,
          checkoutUrl: cart.checkoutUrl,
          lineItems: cart.lineItems,
          firstName: cart.firstName ?? customer?.firstName,
          lastName: cart.lastName ?? customer?.lastName,
        },
      },
      at: deps.clock.now(),
    });
    return { started: 'abandoned_cart' };
  }

  const checkout = await deps.checkouts.get(timer.storeId, timer.token);
  if (!checkout) return { skipped: 'checkout gone' };
  if (checkout.paidAt !== undefined) return { skipped: 'paid' };
  if (checkout.ignoreFlow) return { skipped: 'ignore_flow' };
  const customer = checkout.customerId ? await deps.customers.get(timer.storeId, checkout.customerId) : undefined;
  const email = checkout.email ?? customer?.email;
  if (!email) return { skipped: 'no email on the checkout or its customer' };
  await deps.triggers.fire({
    id: `timer#checkout#${timer.token}`,
    storeId: timer.storeId,
    kind: 'checkout_recovery',
    subject: { type: 'checkout', id: checkout.token },
    contact: {
      email,
      ...(checkout.phone ? { phone: checkout.phone } : {}),
      ...(checkout.customerId ? { customerId: checkout.customerId } : {}),
    },
    cause: { timer: 'checkout' },
    context: { checkout: { token: checkout.token, cartToken: checkout.cartToken, ...checkout.details } },
    at: deps.clock.now(),
  });
  return { started: 'checkout_recovery' };
};
