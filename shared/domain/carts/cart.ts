/**
 * Carts (spec "Cart lifecycle"): upserted by `token`; every write that carries `line_items` replaces all lines (an
 * empty array empties the cart). A general-interface write without `line_items` changes only the fields it carries.
 */
import type { CartData } from '../events/payloads/carts.ts';
import type { HeadlessCartData } from '../events/payloads/headless.ts';

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
  readonly lineItems: readonly Readonly<Record<string, unknown>>[];
  /** `ignore_flow = Y` on the latest write: no recovery for this cart. */
  readonly ignoreFlow: boolean;
  readonly attributes: Readonly<Record<string, unknown>>;
  /** Epoch milliseconds. */
  readonly createdAt: number;
  readonly updatedAt: number;
  /** Counts writes; the abandoned-cart timer remembers the revision it was set for. */
  readonly revision: number;
}

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
  return {
    ...existing,
    ...changes,
    storeId: context.storeId,
    token: cartTokenOf(data as { token?: string; id?: string }),
    lineItems: data.line_items ?? existing?.lineItems ?? [],
    ignoreFlow: general.ignore_flow === 'Y',
    attributes: { ...existing?.attributes, ...extra },
    createdAt: existing?.createdAt ?? context.now,
    updatedAt: context.now,
    revision: (existing?.revision ?? 0) + 1,
  };
};
