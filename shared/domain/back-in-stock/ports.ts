/** Ports of the back-in-stock area: what its use cases need from the outside world. Nothing here imports an AWS SDK. */
import type { BackInStockSubscription } from './model.ts';

export interface BackInStockRepository {
  /** Records (or refreshes) one subscription; the same person, product and variant is one subscription. */
  subscribe(subscription: BackInStockSubscription): Promise<void>;
  /** Every subscription to the product, all variants. */
  listForProduct(storeId: string, productId: string): Promise<BackInStockSubscription[]>;
  /** Removes these subscriptions (those notified by one restock: one batch write, not a delete each). */
  remove(subscriptions: readonly BackInStockSubscription[]): Promise<void>;
}
