import type { Product } from '#shared/domain/products/model.ts';
import type { ProductRepository } from '#shared/domain/products/ports.ts';
import { keys } from './keys.ts';
import { revisionedRepository } from './revisioned.ts';

export const dynamoProductRepository = (): ProductRepository =>
  revisionedRepository<Product>({ entity: 'product', key: keys.product, idOf: (product) => product.id });
