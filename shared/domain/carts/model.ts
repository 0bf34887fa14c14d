/**
 * Carts (spec "Cart lifecycle"): upserted by `token`; every write that carries `line_items` replaces all lines (an
 * empty array empties the cart). A general-interface write without `line_items` changes only the fields it carries.
 *
 * A checkout or a completed payment deletes the cart. The record stays as a closed tombstone (removed by TTL after 30
 * days) so that its revision keeps counting — a cart written again under the same token is a new cart whose timer and
 * trigger ids cannot collide with the old one's — and so the recovery check can tell the customer reached checkout.
 */
import { mergeExtraProperties } from '#shared/domain/events/extra-properties.ts';
import type { CartData } from '#shared/domain/events/payloads/carts.ts';
import type { HeadlessCartData } from '#shared/domain/events/payloads/headless.ts';

export interface Cart {
  readonly storeId: string;
  readonly token: string;
  readonly id?: string;
  readonly email?: string;
  readonly phone?: string;
  readonly firstName?: string;
  readonly lastName?: string;
  readonly countryCode?: string;
  /** The customer's id in the store's system; links the cart to a contact. */
  readonly customerId?: string;
  readonly checkoutUrl?: string;
  /** Last written with the publishable key: its recovery mails only a contact the store knows (`knownAddress`). */
  readonly publicWrite?: true;
  readonly lineItems: readonly Readonly<Record<string, unknown>>[];
  /** `ignore_flow = Y` on the latest write: no recovery for this cart. */
  readonly ignoreFlow: boolean;
  readonly attributes: Readonly<Record<string, unknown>>;
  /** Epoch milliseconds. */
  readonly createdAt: number;
  readonly updatedAt: number;
  /** Counts writes; the abandoned-cart timer remembers the revision it was set for. */
  readonly revision: number;
  /** Set when a checkout or a payment deleted the cart. */
  readonly closed?: { readonly at: number; readonly by: 'checkout' | 'payment' };
  /** When a checkout was created from this cart token: the customer reached checkout, so no cart recovery. */
  readonly reachedCheckoutAt?: number;
  /** Epoch seconds at which DynamoDB's TTL removes a closed cart. */
  readonly expiresAt?: number;
}

/** How long a deleted cart's tombstone is kept. */
const CLOSED_CART_RETENTION_SECONDS = 30 * 24 * 3600;

/** A cart still in play: written, and not deleted by a checkout or a payment. */
export const isOpen = (cart: Cart | undefined): cart is Cart => cart !== undefined && cart.closed === undefined;

/** The cart deleted by a checkout or a payment (kept as a tombstone). */
export const closeCart = (cart: Cart, by: 'checkout' | 'payment', now: number): Cart => ({
  ...cart,
  closed: { at: now, by },
  ...(by === 'checkout' ? { reachedCheckoutAt: cart.reachedCheckoutAt ?? now } : {}),
  expiresAt: Math.floor(now / 1000) + CLOSED_CART_RETENTION_SECONDS,
  updatedAt: now,
  revision: cart.revision + 1,
});

const KNOWN = new Set([
  'id',
  'token',
  'email',
  'phone',
  'first_name',
  'last_name',
  'country_code',
  'customer_id',
  'checkout_url',
  'line_items',
  'ignore_flow',
  'timestamp',
]);

const defined = (record: Record<string, string | undefined>): Partial<Cart> =>
  Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)) as Partial<Cart>;

export const cartTokenOf = (data: { token?: string | undefined; id?: string | undefined }): string =>
  String(data.token ?? data.id);

export const applyCartData = (
  existing: Cart | undefined,
  data: CartData | HeadlessCartData,
  context: { storeId: string; now: number },
): Cart => {
  const general = data as CartData;
  const changes = defined({
    id: general.id,
    email: data.email,
    phone: general.phone,
    firstName: general.first_name,
    lastName: general.last_name,
    countryCode: general.country_code,
    customerId: data.customer_id,
    checkoutUrl: data.checkout_url,
  });
  const extra = Object.fromEntries(
    Object.entries(data).filter(([key, value]) => !KNOWN.has(key) && value !== undefined),
  );
  // A write after the cart was deleted starts a new cart; only the revision count and the checkout mark carry over.
  const previous = isOpen(existing) ? existing : undefined;
  return {
    ...previous,
    ...changes,
    storeId: context.storeId,
    token: cartTokenOf(data as { token?: string; id?: string }),
    lineItems: data.line_items ?? previous?.lineItems ?? [],
    ignoreFlow: general.ignore_flow === 'Y',
    attributes: mergeExtraProperties('cart', previous?.attributes, extra),
    createdAt: previous?.createdAt ?? context.now,
    updatedAt: context.now,
    revision: (existing?.revision ?? 0) + 1,
    ...(existing?.reachedCheckoutAt !== undefined ? { reachedCheckoutAt: existing.reachedCheckoutAt } : {}),
  };
};
