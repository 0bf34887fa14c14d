/**
 * Order events (general rules 1 and 5, "Checkout and order"): orders are stored by `id` with their status history.
 * Payment completed — `orders/paid`, or `orders/update` with a paid status — deletes the cart (`cart_token`) and marks
 * the abandoned checkout (`checkout_token`) paid so its recovery stops.
 */
import { orderPaid } from '#shared/domain/attribution/attribute.ts';
import { markCheckoutPaid } from '#shared/domain/checkouts/model.ts';
import type { OrderChangeData, OrderData } from '#shared/domain/events/payloads/orders.ts';
import { type FlowKind, flowsIgnored } from '#shared/domain/flows/trigger.ts';
import type { IngestMessage } from '#shared/domain/ingest/model.ts';
import { applyOrderData, type Order } from '#shared/domain/orders/model.ts';
import {
  type ApplyDeps,
  type ApplyOutcome,
  deleteCart,
  fireFromEvent,
  withoutUndefined,
  withRetry,
} from './context.ts';

/** The flow each order endpoint starts (rule 5); `orders/update` only when the status changed. */
const FLOW_OF: Partial<Record<string, FlowKind>> = {
  'orders/paid': 'order_paid',
  'orders/fulfilled': 'order_fulfilled',
  'orders/update': 'order_status_changed',
  'orders/refunded': 'order_refunded',
};

const completePayment = async (deps: ApplyDeps, order: Order) => {
  if (order.cartToken) await deleteCart(deps, order.storeId, order.cartToken, 'payment');
  const token = order.checkoutToken;
  if (!token) return;
  await withRetry(async () => {
    const existing = await deps.checkouts.get(order.storeId, token);
    if (existing?.paidAt !== undefined) return;
    const paid = markCheckoutPaid(existing, {
      storeId: order.storeId,
      token,
      orderId: order.id,
      now: deps.clock.now(),
    });
    await deps.checkouts.save(paid, existing?.revision ?? 0);
  });
};

export const applyOrder = async (deps: ApplyDeps, message: IngestMessage): Promise<ApplyOutcome> => {
  const data = message.data as OrderData | OrderChangeData;
  const { order, previousStatus, statusChanged } = await withRetry(async () => {
    const existing = await deps.orders.get(message.storeId, String(data.id));
    const write = applyOrderData(existing, message.endpoint, data, { storeId: message.storeId, now: deps.clock.now() });
    await deps.orders.save(write.order, existing?.revision ?? 0);
    return write;
  });

  const paymentCompleted =
    message.endpoint === 'orders/paid' || (message.endpoint === 'orders/update' && order.status === 'paid');
  if (paymentCompleted) {
    await completePayment(deps, order);
    // Recovered or influenced (docs/attribution.md), decided once per order.
    await orderPaid(
      {
        attribution: deps.attribution,
        clock: deps.clock,
        influenceWindowDays: async (storeId) => (await deps.stores.get(storeId))?.influenceWindowDays,
      },
      order,
    );
  }

  const kind = FLOW_OF[message.endpoint];
  const starts =
    kind !== undefined && (kind !== 'order_status_changed' || statusChanged) && !flowsIgnored(message.data);
  // The contact's order facts (segments): by the order's customer id, else by its address.
  const facts = {
    contact: withoutUndefined({ customerId: order.customerId, email: order.email }),
    order: withoutUndefined({ id: order.id, status: order.status, details: order.details }),
  };
  if (!starts) return { applied: 'order', triggers: [], ...facts };
  await fireFromEvent(deps, message, {
    kind,
    subject: { type: 'order', id: order.id },
    contact: { email: order.email, customerId: order.customerId },
    context: { order: { id: order.id, status: order.status, previousStatus, ...order.details } },
  });
  return { applied: 'order', triggers: [kind], ...facts };
};
