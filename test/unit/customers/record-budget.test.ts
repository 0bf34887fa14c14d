/**
 * The exported-record budget of a contact (docs/limits.md): a write that would grow the contact's export record past
 * `CONTACT_RECORD_MAX_BYTES` fails for good and leaves the contact as it was; one that keeps it within, or shrinks a
 * record already past it, is written. With it, the largest export page has a known bound.
 */
import { describe, expect, it } from 'vitest';
import { CONTACT_RECORD_MAX_BYTES, contactRecordBytes } from '#shared/domain/contacts/model.ts';
import { upsertContact } from '#shared/domain/contacts/upsert-contact.ts';
import type { Customer } from '#shared/domain/customers/model.ts';
import { parseGeneralEvent } from '#shared/domain/events/envelope.ts';
import type { CustomerCreateData, CustomerUpdateData } from '#shared/domain/events/payloads/customers.ts';
import { PermanentError } from '#shared/errors.ts';

const payload = (endpoint: string, data: Record<string, unknown>) =>
  parseGeneralEvent({ endpoint, source_id: 's', data }).data as CustomerCreateData | CustomerUpdateData;

const memory = () => {
  const stored = new Map<string, Customer>();
  return {
    stored,
    deps: {
      customers: {
        get: async (_storeId: string, originId: string) => stored.get(originId),
        save: async (customer: Customer) => {
          stored.set(customer.originId, customer);
        },
      },
      webhooks: { emit: async () => {} },
      clock: { now: () => 1_700_000_500_000 },
      newContactId: () => 'ct_1',
    },
  };
};
const source = { storeId: 'st_a', storeType: 'direct' as const, eventId: 'e1' };
const tags = (count: number, width: number) => Array.from({ length: count }, (_, i) => `${i}`.padEnd(width, 'x'));

describe('the exported-record budget', () => {
  it('refuses for good a write that would pass it, and keeps the contact as it was', async () => {
    const { deps, stored } = memory();
    await upsertContact(deps, source, payload('customers/create', { id: 'c1', email: 'a@example.com', created_at: 1 }));
    const before = stored.get('c1');
    const growing = upsertContact(deps, source, payload('customers/update', { id: 'c1', tags: tags(100, 200) }));
    await expect(growing).rejects.toBeInstanceOf(PermanentError);
    await expect(growing).rejects.toThrow(/would take \d+ bytes; at most 16384/);
    expect(stored.get('c1')).toEqual(before);
  });

  it('writes a contact just within it', async () => {
    const { deps, stored } = memory();
    await upsertContact(
      deps,
      source,
      payload('customers/create', { id: 'c1', email: 'a@example.com', created_at: 1, tags: tags(60, 200) }),
    );
    const bytes = contactRecordBytes(stored.get('c1') as Customer);
    expect(bytes).toBeGreaterThan(CONTACT_RECORD_MAX_BYTES * 0.7);
    expect(bytes).toBeLessThanOrEqual(CONTACT_RECORD_MAX_BYTES);
  });

  it('lets a contact stored past it (before the budget) shrink, and refuses it growing further', async () => {
    const { deps, stored } = memory();
    await upsertContact(deps, source, payload('customers/create', { id: 'c1', email: 'a@example.com', created_at: 1 }));
    stored.set('c1', { ...(stored.get('c1') as Customer), platformTags: tags(100, 200) });
    await upsertContact(deps, source, payload('customers/update', { id: 'c1', tags: tags(90, 200) }));
    expect(stored.get('c1')?.platformTags).toHaveLength(90);
    await expect(
      upsertContact(deps, source, payload('customers/update', { id: 'c1', tags: tags(95, 200) })),
    ).rejects.toBeInstanceOf(PermanentError);
  });
});
