/**
 * Orders: stored and updated by `id`, with the history of their statuses. `orders/cancelled` and `orders/refunded`
 * imply their status when the payload carries none.
 */
import type { OrderChangeData, OrderData, OrderStatus } from '#shared/domain/events/payloads/orders.ts';

export interface StatusChange {
  readonly status: OrderStatus;
  /** Epoch milliseconds. */
  readonly at: number;
  readonly endpoint: string;
}

export interface Order {
  readonly storeId: string;
  readonly id: string;
  readonly customerId?: string;
  readonly email?: string;
  readonly status?: OrderStatus;
  readonly cartToken?: string;
  readonly checkoutToken?: string;
  /** Every order field as sent, merged over writes (the spec shows no full property list). */
  readonly details: Readonly<Record<string, unknown>>;
  readonly statusHistory: readonly StatusChange[];
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly revision: number;
}

/**
 * Endpoints whose name is the status: `orders/paid` is the payment (spec: "payment completed"), `orders/cancelled` and
 * `orders/refunded` say what happened; a contradicting `order_status` (e.g. `pending` on `orders/paid`) is kept in
 * `details` as sent, the stored status is the endpoint's. `orders/fulfilled` and `orders/update` store the payload's.
 */
const ENDPOINT_STATUS: Partial<Record<string, OrderStatus>> = {
  'orders/paid': 'paid',
  'orders/cancelled': 'cancelled',
  'orders/refunded': 'refunded',
};

export interface OrderWrite {
  readonly order: Order;
  readonly previousStatus: OrderStatus | undefined;
  readonly statusChanged: boolean;
}

export const applyOrderData = (
  existing: Order | undefined,
  endpoint: string,
  data: OrderData | OrderChangeData,
  context: { storeId: string; now: number },
): OrderWrite => {
  const status = ENDPOINT_STATUS[endpoint] ?? data.order_status;
  const previousStatus = existing?.status;
  const statusChanged = status !== undefined && status !== previousStatus;
  const { id, customer_id, email, cart_token, checkout_token, ...rest } = data;
  // `order_status` stays in details as sent; `status` is the order's status after this event.
  const details = Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined));
  const order: Order = {
    ...existing,
    storeId: context.storeId,
    id: String(id),
    ...(customer_id !== undefined ? { customerId: String(customer_id) } : {}),
    ...(email !== undefined ? { email } : {}),
    ...(cart_token !== undefined ? { cartToken: String(cart_token) } : {}),
    ...(checkout_token !== undefined ? { checkoutToken: String(checkout_token) } : {}),
    ...(status !== undefined ? { status } : {}),
    details: { ...existing?.details, ...details },
    statusHistory: statusChanged
      ? [...(existing?.statusHistory ?? []), { status, at: context.now, endpoint }]
      : (existing?.statusHistory ?? []),
    createdAt: existing?.createdAt ?? context.now,
    updatedAt: context.now,
    revision: (existing?.revision ?? 0) + 1,
  };
  return { order, previousStatus, statusChanged };
};
