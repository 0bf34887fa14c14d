/**
 * Back-in-stock: `products/back_in_stock` records a subscription and starts no flow; `products/restock` (and a product
 * update whose variant stock goes from 0 to above 0) notifies every subscriber of that product/variant once, then
 * clears those subscriptions (general rule 3, headless rule 6).
 */
import {
  ANY_VARIANT,
  type BackInStockSubscription,
  notifiedBy,
  subscriberKey,
} from '#shared/domain/back-in-stock/model.ts';
import type { BackInStockData, RestockData } from '#shared/domain/events/payloads/engagement.ts';
import type { HeadlessBackInStockData } from '#shared/domain/events/payloads/headless.ts';
import type { FlowKind } from '#shared/domain/flows/trigger.ts';
import type { IngestMessage } from '#shared/domain/ingest/model.ts';
import type { Product } from '#shared/domain/products/model.ts';
import { type ApplyDeps, type ApplyOutcome, fireFromEvent, withoutUndefined } from './context.ts';

export const applyBackInStock = async (deps: ApplyDeps, message: IngestMessage): Promise<ApplyOutcome> => {
  const now = deps.clock.now();
  const base = {
    storeId: message.storeId,
    createdAt: now,
    ...(message.key === 'publishable' ? { viaPublicKey: true as const } : {}),
  };
  let subscriptions: BackInStockSubscription[];
  if (message.interface === 'headless') {
    const { product_id, product_variants, email, phone, ...details } = message.data as HeadlessBackInStockData;
    const variants = product_variants?.length ? product_variants : [ANY_VARIANT];
    subscriptions = variants.map((variantId) =>
      withoutUndefined({
        ...base,
        productId: String(product_id),
        variantId,
        email,
        phone,
        details: withoutUndefined(details),
      }),
    );
  } else {
    const { product_id, variant_id, email, phone, ignore_flow, ...details } = message.data as BackInStockData;
    subscriptions = [
      withoutUndefined({
        ...base,
        productId: String(product_id),
        variantId: variant_id ?? ANY_VARIANT,
        email,
        phone,
        details: withoutUndefined(details),
      }),
    ];
  }
  for (const subscription of subscriptions) await deps.backInStock.subscribe(subscription);
  return { applied: 'back_in_stock_subscription', triggers: [] };
};

/**
 * Notifies the subscribers of a product (or one variant) and clears their subscriptions: every trigger fired first,
 * then the subscriptions removed together. A crash in between re-fires the same trigger ids (no-ops) and never loses a
 * notice.
 */
export const notifyRestock = async (
  deps: ApplyDeps,
  message: IngestMessage,
  productId: string,
  variantId: string | undefined,
  /** The product when the caller just wrote it; read otherwise (and only when someone is to be notified). */
  known?: Product,
): Promise<FlowKind[]> => {
  const subscribers = notifiedBy(await deps.backInStock.listForProduct(message.storeId, productId), variantId);
  if (subscribers.length === 0) return [];
  const product = known ?? (await deps.products.get(message.storeId, productId));
  const fired: FlowKind[] = [];
  for (const subscription of subscribers) {
    fired.push(
      await fireFromEvent(deps, message, {
        kind: 'back_in_stock',
        subject: { type: 'product', id: productId },
        contact: { email: subscription.email, phone: subscription.phone },
        context: withoutUndefined({
          productId,
          variantId: subscription.variantId || variantId,
          subscription: subscription.details,
          product: product && {
            id: product.id,
            title: product.title,
            src: product.src,
            purchaseUrl: product.purchaseUrl,
          },
        }),
        discriminator: `${subscription.variantId}#${subscriberKey(subscription)}`,
        publicOrigin: subscription.viaPublicKey === true,
      }),
    );
  }
  await deps.backInStock.remove(subscribers);
  return fired;
};

export const applyRestock = async (deps: ApplyDeps, message: IngestMessage): Promise<ApplyOutcome> => {
  const data = message.data as RestockData;
  // `ignore_flow = Y`: no notice is sent, so the subscriptions stay for the next restock.
  if (data.ignore_flow === 'Y') return { applied: 'none', triggers: [] };
  return { applied: 'restock', triggers: await notifyRestock(deps, message, String(data.product_id), data.variant_id) };
};
