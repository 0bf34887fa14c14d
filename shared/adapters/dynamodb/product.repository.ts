import type { Product } from '#shared/domain/products/model.ts';
import type { ProductRepository } from '#shared/domain/products/ports.ts';
import type { ItemReader } from './coalesced.ts';
import { keys } from './keys.ts';
import { revisionedRepository } from './revisioned.ts';

/** `reads`: where `get` reads (the ingest worker gathers its batch's reads, `coalesced.ts`). */
export const dynamoProductRepository = (reads?: ItemReader): ProductRepository =>
  revisionedRepository<Product>({ reads, entity: 'product', key: keys.product, idOf: (product) => product.id });
