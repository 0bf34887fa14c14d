import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { ProductRepository } from '../../domain/ports.ts';
import type { Product } from '../../domain/products/product.ts';
import { dynamo } from '../aws-clients.ts';
import { itemMeta, keys, withoutMeta } from './keys.ts';
import { putRevisioned } from './revisioned.ts';
import { tableName } from './table.ts';

export const dynamoProductRepository = (): ProductRepository => ({
  async get(storeId: string, productId: string) {
    const { Item } = await dynamo().send(
      new GetCommand({ TableName: tableName(), Key: keys.product(storeId, productId), ConsistentRead: true }),
    );
    return Item ? withoutMeta<Product>(Item) : undefined;
  },

  async save(product: Product, expectedRevision: number) {
    const item = { ...keys.product(product.storeId, product.id), ...itemMeta('product'), ...product };
    await putRevisioned(item, expectedRevision, `Product ${product.id}`);
  },
});
