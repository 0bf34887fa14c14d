import type { Customer } from '#shared/domain/customers/model.ts';
import type { CustomerRepository } from '#shared/domain/customers/ports.ts';
import { directPuts, type ItemReader, type ItemWriter } from './coalesced.ts';
import { adjustContactCounts, type ContactCountAdjuster } from './contact-counts.ts';
import { syncContactLookups } from './contact-search.ts';
import { itemMeta, keys } from './keys.ts';
import { revisionedRepository } from './revisioned.ts';

const customerIndexKeys = (customer: Customer) => ({
  ...keys.customerByCreation(customer.storeId, customer.createdAt, customer.id),
  ...(customer.email ? keys.customerByEmail(customer.storeId, customer.email, customer.originId) : {}),
});

/** The stored item of a customer, as the repository writes it (for writers of many at once: seeding, benches). */
export const customerItem = (customer: Customer): Record<string, unknown> => ({
  ...keys.customer(customer.storeId, customer.originId),
  ...customerIndexKeys(customer),
  ...itemMeta('customer'),
  ...customer,
});

/**
 * `reads`: where `get` reads (the flow and ingest workers gather their batch's reads, `coalesced.ts`); `counts`: where
 * the export's counters are adjusted after a write (the ingest worker and the import sum their batch's,
 * `batchedContactCounts`); `lookupPuts`: where the search's new lookup items are put (the import gathers a batch's).
 */
export const dynamoCustomerRepository = (
  reads?: ItemReader,
  counts: ContactCountAdjuster = adjustContactCounts,
  lookupPuts: ItemWriter = directPuts,
): CustomerRepository =>
  revisionedRepository<Customer>({
    reads,
    entity: 'customer',
    key: keys.customer,
    idOf: (customer) => customer.originId,
    indexKeys: customerIndexKeys,
    // The export's counters follow a new contact, or a creation time that changed; the search's lookup items a phone
    // or name that changed (a save that changes neither writes nothing more).
    afterSave: async (customer, replaced) => {
      const before = replaced === undefined ? undefined : Number(replaced.createdAt);
      if (before !== customer.createdAt) await counts(customer.storeId, before, customer.createdAt);
      await syncContactLookups(customer, replaced, lookupPuts);
    },
  });
