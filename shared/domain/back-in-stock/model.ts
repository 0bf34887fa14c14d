/** Back-in-stock subscriptions (spec "products/back_in_stock", general rule 3 and headless rule 6). */

/** The empty variant: a subscription to the product as a whole ("when omitted, the empty variant is used"). */
export const ANY_VARIANT = '';

export interface BackInStockSubscription {
  readonly storeId: string;
  readonly productId: string;
  /** `ANY_VARIANT` for the product as a whole. */
  readonly variantId: string;
  readonly email?: string;
  readonly phone?: string;
  readonly details: Readonly<Record<string, unknown>>;
  /** Epoch milliseconds. */
  readonly createdAt: number;
  /** Requested with the publishable key: its notice mails only a contact the store knows (`knownAddress`). */
  readonly viaPublicKey?: true;
}

/** One subscription per person, product and variant. */
export const subscriberKey = (subscription: Pick<BackInStockSubscription, 'email' | 'phone'>): string =>
  subscription.email ? `email:${subscription.email}` : `phone:${subscription.phone ?? ''}`;

/**
 * Who a restock notifies: the variant's subscribers and the product-wide ones; a restock without a variant notifies
 * every subscriber of the product.
 */
export const notifiedBy = (
  subscriptions: readonly BackInStockSubscription[],
  variantId: string | undefined,
): BackInStockSubscription[] =>
  variantId === undefined
    ? [...subscriptions]
    : subscriptions.filter((s) => s.variantId === variantId || s.variantId === ANY_VARIANT);
