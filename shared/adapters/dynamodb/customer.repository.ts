import type { Customer } from '#shared/domain/customers/model.ts';
import type { CustomerRepository } from '#shared/domain/customers/ports.ts';
import { keys } from './keys.ts';
import { revisionedRepository } from './revisioned.ts';

export const dynamoCustomerRepository = (): CustomerRepository =>
  revisionedRepository<Customer>({
    entity: 'customer',
    key: keys.customer,
    idOf: (customer) => customer.originId,
    indexKeys: (customer) => ({
      ...keys.customerByCreation(customer.storeId, customer.createdAt, customer.id),
      ...(customer.email ? keys.customerByEmail(customer.storeId, customer.email, customer.originId) : {}),
    }),
  });
