/**
 * The worker's use case: apply one accepted event to the store's entities. Events of one entity arrive in order (FIFO
 * group per entity); writes use optimistic concurrency so a concurrent writer (the other interface, a redelivery)
 * never loses an update, and re-applying the same event converges to the same state.
 */
import { applyCustomerData } from '../customers/customer.ts';
import type { CustomerCreateData, CustomerUpdateData } from '../events/payloads/customers.ts';
import type { ProductData } from '../events/payloads/products.ts';
import {
  type Clock,
  type CustomerRepository,
  type IngestMessage,
  type ProductRepository,
  RevisionConflict,
} from '../ports.ts';
import { applyProductData } from '../products/product.ts';

export interface ApplyDeps {
  readonly customers: CustomerRepository;
  readonly products: ProductRepository;
  readonly clock: Clock;
  readonly newContactId: () => string;
}

export type ApplyOutcome =
  | { readonly kind: 'customer'; readonly created: boolean; readonly customerId: string }
  | { readonly kind: 'product'; readonly created: boolean; readonly productId: string }
  /** Validated and accepted; the behaviour of this endpoint is not part of this stage. */
  | { readonly kind: 'accepted-only' };

const MAX_CONFLICT_RETRIES = 5;

/** Read-modify-write with a revision check, retried when another writer got there first. */
const withRetry = async <T>(attempt: () => Promise<T>): Promise<T> => {
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof RevisionConflict) || tries >= MAX_CONFLICT_RETRIES) throw error;
    }
  }
};

const applyCustomer = (deps: ApplyDeps, message: IngestMessage) =>
  withRetry(async (): Promise<ApplyOutcome> => {
    const data = message.data as CustomerCreateData | CustomerUpdateData;
    const existing = await deps.customers.get(message.storeId, String(data.id));
    const { customer, created } = applyCustomerData(existing, data, {
      storeId: message.storeId,
      newId: deps.newContactId,
      now: deps.clock.now(),
    });
    await deps.customers.save(customer, existing?.revision ?? 0);
    return { kind: 'customer', created, customerId: customer.id };
  });

const applyProduct = (deps: ApplyDeps, message: IngestMessage) =>
  withRetry(async (): Promise<ApplyOutcome> => {
    const data = message.data as ProductData;
    const existing = await deps.products.get(message.storeId, String(data.id));
    const product = applyProductData(existing, data, { storeId: message.storeId, now: deps.clock.now() });
    await deps.products.save(product, existing?.revision ?? 0);
    return { kind: 'product', created: existing === undefined, productId: product.id };
  });

export const applyEvent = async (deps: ApplyDeps, message: IngestMessage): Promise<ApplyOutcome> => {
  switch (message.endpoint) {
    case 'customers/create':
    case 'customers/update':
    case 'customers':
      return applyCustomer(deps, message);
    case 'products/create':
    case 'products/update':
    case 'products':
      return applyProduct(deps, message);
    default:
      return { kind: 'accepted-only' };
  }
};
