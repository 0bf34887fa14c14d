/**
 * Products: one record per SPU with all its SKUs (`variants`). `products/create`, `products/update` and `products`
 * take the same fields and create or replace the record (spec: "products creates or updates as needed").
 */
import type { ProductData } from '#shared/domain/events/payloads/products.ts';

export interface ProductVariant {
  readonly id?: string;
  readonly sku?: string;
  readonly price?: string;
  readonly src?: string;
  readonly inventoryQuantity?: number;
  readonly option1?: string;
  readonly option2?: string;
  readonly option3?: string;
  readonly attributes: Readonly<Record<string, unknown>>;
}

export interface Product {
  readonly storeId: string;
  /** SPU id in the caller's system. */
  readonly id: string;
  readonly title: string;
  /** Main image URL (browse recovery needs a product with an image). */
  readonly src: string;
  readonly purchaseUrl: string;
  readonly handle?: string;
  /** Seconds, as sent. */
  readonly createdAt?: number;
  readonly variants: readonly ProductVariant[];
  readonly attributes: Readonly<Record<string, unknown>>;
  /** Epoch milliseconds of the first and the last write. */
  readonly firstSeenAt: number;
  readonly updatedAt: number;
  readonly revision: number;
}

const PRODUCT_FIELDS = new Set([
  'id',
  'title',
  'src',
  'purchase_url',
  'handle',
  'created_at',
  'variants',
  'ignore_flow',
]);
const VARIANT_FIELDS = new Set(['id', 'sku', 'price', 'src', 'inventory_quantity', 'option1', 'option2', 'option3']);

const extras = (record: Record<string, unknown>, known: Set<string>) =>
  Object.fromEntries(Object.entries(record).filter(([key, value]) => !known.has(key) && value !== undefined));

const withoutUndefined = <T extends object>(record: T): T =>
  Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)) as T;

const toVariant = (variant: ProductData['variants'][number]): ProductVariant =>
  withoutUndefined({
    id: variant.id,
    sku: variant.sku,
    price: variant.price,
    src: variant.src,
    inventoryQuantity: variant.inventory_quantity,
    option1: variant.option1,
    option2: variant.option2,
    option3: variant.option3,
    attributes: extras(variant, VARIANT_FIELDS),
  }) as ProductVariant;

/** The product as the payload describes it, replacing the stored one (all SKUs come in one array). */
export const applyProductData = (
  existing: Product | undefined,
  data: ProductData,
  context: { storeId: string; now: number },
): Product =>
  withoutUndefined({
    storeId: context.storeId,
    id: String(data.id),
    title: data.title,
    src: data.src,
    purchaseUrl: data.purchase_url,
    handle: data.handle,
    createdAt: data.created_at ?? existing?.createdAt,
    variants: data.variants.map(toVariant),
    attributes: extras(data, PRODUCT_FIELDS),
    firstSeenAt: existing?.firstSeenAt ?? context.now,
    updatedAt: context.now,
    revision: (existing?.revision ?? 0) + 1,
  }) as Product;
