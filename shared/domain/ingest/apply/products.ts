/**
 * Product events: create or replace the product. A variant whose stock goes from 0 (or less) to above 0 is a restock
 * (its back-in-stock subscribers are notified), like an explicit `products/restock`.
 */
import type { ProductData } from '#shared/domain/events/payloads/products.ts';
import type { FlowKind } from '#shared/domain/flows/trigger.ts';
import type { IngestMessage } from '#shared/domain/ingest/model.ts';
import { applyProductData, type Product } from '#shared/domain/products/model.ts';
import { notifyRestock } from './back-in-stock.ts';
import { type ApplyDeps, type ApplyOutcome, withRetry } from './context.ts';

/** Variant ids whose stock was known to be 0 or less and is now above 0. */
export const restockedVariants = (before: Product | undefined, after: Product): string[] => {
  if (!before) return [];
  const previous = new Map(before.variants.filter((v) => v.id !== undefined).map((v) => [v.id, v.inventoryQuantity]));
  return after.variants
    .filter((v) => {
      const was = v.id === undefined ? undefined : previous.get(v.id);
      return was !== undefined && was <= 0 && (v.inventoryQuantity ?? 0) > 0;
    })
    .map((v) => String(v.id));
};

export const applyProduct = async (deps: ApplyDeps, message: IngestMessage): Promise<ApplyOutcome> => {
  const data = message.data as ProductData;
  const { before, after } = await withRetry(async () => {
    const existing = await deps.products.get(message.storeId, String(data.id));
    const product = applyProductData(existing, data, { storeId: message.storeId, now: deps.clock.now() });
    await deps.products.save(product, existing?.revision ?? 0);
    return { before: existing, after: product };
  });
  const triggers: FlowKind[] = [];
  if (data.ignore_flow !== 'Y') {
    for (const variantId of restockedVariants(before, after)) {
      triggers.push(...(await notifyRestock(deps, message, after.id, variantId, after)));
    }
  }
  return { applied: 'product', triggers };
};
