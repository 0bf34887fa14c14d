import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Customer } from '../../domain/customers/customer.ts';
import type { CustomerRepository } from '../../domain/ports.ts';
import { dynamo } from '../aws-clients.ts';
import { itemMeta, keys, withoutMeta } from './keys.ts';
import { putRevisioned } from './revisioned.ts';
import { tableName } from './table.ts';

export const dynamoCustomerRepository = (): CustomerRepository => ({
  async get(storeId: string, originId: string) {
    const { Item } = await dynamo().send(
      new GetCommand({ TableName: tableName(), Key: keys.customer(storeId, originId), ConsistentRead: true }),
    );
    return Item ? withoutMeta<Customer>(Item) : undefined;
  },

  async save(customer: Customer, expectedRevision: number) {
    const item = {
      ...keys.customer(customer.storeId, customer.originId),
      ...keys.customerByCreation(customer.storeId, customer.createdAt, customer.id),
      ...(customer.email ? keys.customerByEmail(customer.storeId, customer.email, customer.originId) : {}),
      ...itemMeta('customer'),
      ...customer,
    };
    await putRevisioned(item, expectedRevision, `Customer ${customer.originId}`);
  },
});
