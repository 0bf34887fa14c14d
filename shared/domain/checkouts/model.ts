/**
 * Checkouts (spec "Checkout and order"): stored by `token`. A paid order carrying the `checkout_token` marks the
 * checkout paid, even when it arrives before the checkout itself, so the recovery timer finds the payment.
 */
import type { CheckoutData } from '#shared/domain/events/payloads/carts.ts';

export interface Checkout {
  readonly storeId: string;
  readonly token: string;
  readonly cartToken?: string;
  readonly email?: string;
  readonly phone?: string;
  readonly customerId?: string;
  /** The checkout fields as sent (amounts, `abandoned_checkout_url`, lines, addresses, …), merged over writes. */
  readonly details: Readonly<Record<string, unknown>>;
  /** Set when a paid order matched this checkout: recovery is no longer needed. */
  readonly paidAt?: number;
  readonly paidByOrderId?: string;
  /** False for a record created only by a payment that arrived before `checkouts/create`. */
  readonly seen: boolean;
  readonly ignoreFlow: boolean;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly revision: number;
}

export const applyCheckoutData = (
  existing: Checkout | undefined,
  data: CheckoutData,
  context: { storeId: string; now: number },
): Checkout => {
  const { token, cart_token, email, phone, customer_id, ignore_flow, ...details } = data;
  const checkout: Checkout = {
    ...existing,
    storeId: context.storeId,
    token: String(token),
    details: {
      ...existing?.details,
      ...Object.fromEntries(Object.entries(details).filter(([, v]) => v !== undefined)),
    },
    seen: true,
    ignoreFlow: ignore_flow === 'Y',
    createdAt: existing?.createdAt ?? context.now,
    updatedAt: context.now,
    revision: (existing?.revision ?? 0) + 1,
  };
  return {
    ...checkout,
    ...(cart_token !== undefined ? { cartToken: String(cart_token) } : {}),
    ...(email !== undefined ? { email } : {}),
    ...(phone !== undefined ? { phone } : {}),
    ...(customer_id !== undefined ? { customerId: String(customer_id) } : {}),
  };
};

/** The checkout after a paid order matched it (created as an unseen marker when the checkout is not known yet). */
export const markCheckoutPaid = (
  existing: Checkout | undefined,
  payment: { storeId: string; token: string; orderId: string; now: number },
): Checkout => ({
  storeId: payment.storeId,
  token: payment.token,
  details: {},
  seen: false,
  ignoreFlow: false,
  createdAt: payment.now,
  ...existing,
  paidAt: existing?.paidAt ?? payment.now,
  paidByOrderId: existing?.paidByOrderId ?? payment.orderId,
  updatedAt: payment.now,
  revision: (existing?.revision ?? 0) + 1,
});
