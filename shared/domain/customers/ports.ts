/** Ports of the customers area: what its use cases need from the outside world. Nothing here imports an AWS SDK. */
import type { Customer } from './model.ts';

export interface CustomerRepository {
  get(storeId: string, originId: string): Promise<Customer | undefined>;
  /** Writes the customer if the stored revision is still `expectedRevision` (0: must not exist yet). */
  save(customer: Customer, expectedRevision: number): Promise<void>;
}
