/** Ports of the products area: what its use cases need from the outside world. Nothing here imports an AWS SDK. */
import type { Product } from './model.ts';

export interface ProductRepository {
  get(storeId: string, productId: string): Promise<Product | undefined>;
  save(product: Product, expectedRevision: number): Promise<void>;
}
