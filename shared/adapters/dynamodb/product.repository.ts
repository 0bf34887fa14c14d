import type { ProductRepository } from '../../domain/ports.ts';
import type { Product } from '../../domain/products/product.ts';
import { keys } from './keys.ts';
import { revisionedRepository } from './revisioned.ts';

export const dynamoProductRepository = (): ProductRepository =>
  revisionedRepository<Product>({ entity: 'product', key: keys.product, idOf: (product) => product.id });
