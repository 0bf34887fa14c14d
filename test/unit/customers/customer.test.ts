/** How customer events change a customer (spec "General event payloads": customers/create, customers/update, customers). */
import { describe, expect, it } from 'vitest';
import { applyCustomerData, type Customer, parseTagValue } from '#shared/domain/customers/model.ts';
import { parseGeneralEvent } from '#shared/domain/events/envelope.ts';
import type { CustomerCreateData, CustomerUpdateData } from '#shared/domain/events/payloads/customers.ts';

const NOW = 1_700_000_500_000;
let ids = 0;
const context = { storeId: 'st_a', newId: () => `ct_${++ids}`, now: NOW };
const baseFields = { id: 'c1', email: 'ada@example.com', created_at: 1_700_000_000 };

/** The payload as the API would hand it to the worker: validated and normalised. */
const payload = (endpoint: string, data: Record<string, unknown>) =>
  parseGeneralEvent({ endpoint, source_id: 's', data }).data as CustomerCreateData | CustomerUpdateData;

const created = (data: Record<string, unknown>): Customer =>
  applyCustomerData(
    undefined,
    payload('customers/create', { id: 'c1', email: 'ada@example.com', created_at: 1_700_000_000, ...data }),
    context,
  ).customer;

describe('applyCustomerData', () => {
  it('creates a customer from customers/create and says so', () => {
    const write = applyCustomerData(
      undefined,
      payload('customers/create', {
        id: 'c1',
        email: 'ada@example.com',
        created_at: 1_700_000_000,
        first_name: 'Ada',
        country_code: 'gb',
        tags: ['a', 'b', 'a'],
        tag_value: 'level:gold',
        email_marketing_consent: { state: 'subscribed', updatedAt: 1_700_000_001 },
      }),
      context,
    );
    expect(write.created).toBe(true);
    expect(write.customer).toMatchObject({
      storeId: 'st_a',
      originId: 'c1',
      email: 'ada@example.com',
      firstName: 'Ada',
      countryCode: 'GB',
      createdAt: 1_700_000_000,
      updatedAt: NOW,
      revision: 1,
      platformTags: ['a', 'b'],
      categoryTags: [{ category: 'level', value: 'gold' }],
      emailConsent: { state: 'subscribed', updatedAt: 1_700_000_001 },
      attributes: {},
    });
    expect(write.customer.id).toMatch(/^ct_/);
  });

  it('changes only the fields an update passes', () => {
    const existing = created({ first_name: 'Ada', last_name: 'Lovelace', city: 'London', tag_value: 'level:gold' });
    const { customer, created: wasCreated } = applyCustomerData(
      existing,
      payload('customers/update', { id: 'c1', city: 'Paris' }),
      { ...context, now: NOW + 1000 },
    );
    expect(wasCreated).toBe(false);
    expect(customer).toEqual({ ...existing, city: 'Paris', updatedAt: NOW + 1000, revision: 2 });
  });

  it('keeps the service id and creation time when an existing customer is updated', () => {
    const existing = created({});
    const { customer } = applyCustomerData(existing, payload('customers', { ...baseFields, first_name: 'A' }), context);
    expect(customer.id).toBe(existing.id);
    expect(customer.createdAt).toBe(existing.createdAt);
    expect(customer.firstName).toBe('A');
  });

  it('ignores null fields in an update instead of erasing the stored value', () => {
    const existing = created({ first_name: 'Ada' });
    const { customer } = applyCustomerData(
      existing,
      payload('customers/update', { id: 'c1', first_name: null }),
      context,
    );
    expect(customer.firstName).toBe('Ada');
  });

  it('merges unknown extra fields into attributes', () => {
    const existing = created({ loyalty: { points: 10 }, segment: 'b2b' });
    expect(existing.attributes).toEqual({ loyalty: { points: 10 }, segment: 'b2b' });
    const { customer } = applyCustomerData(
      existing,
      payload('customers/update', { id: 'c1', loyalty: { points: 25 }, referrer: 'friend' }),
      context,
    );
    expect(customer.attributes).toEqual({ loyalty: { points: 25 }, segment: 'b2b', referrer: 'friend' });
  });

  it('does not store spec fields such as ignore_flow as attributes', () => {
    expect(created({ ignore_flow: 'Y' }).attributes).toEqual({});
  });

  it('creates a customer first seen through customers/update, created_at defaulting to the event time', () => {
    const write = applyCustomerData(undefined, payload('customers/update', { id: 77, city: 'Oslo' }), context);
    expect(write.created).toBe(true);
    expect(write.customer).toMatchObject({ originId: '77', city: 'Oslo', createdAt: Math.floor(NOW / 1000) });
  });

  it('replaces category tags when tag_value is passed again', () => {
    const existing = created({ tag_value: 'level:gold' });
    const { customer } = applyCustomerData(
      existing,
      payload('customers/update', { id: 'c1', tag_value: 'level:silver,source:popup' }),
      context,
    );
    expect(customer.categoryTags).toEqual([
      { category: 'level', value: 'silver' },
      { category: 'source', value: 'popup' },
    ]);
  });
});

describe('parseTagValue', () => {
  it('reads category:value pairs separated by commas, trimmed', () => {
    expect(parseTagValue(' level : gold ,source:popup')).toEqual([
      { category: 'level', value: 'gold' },
      { category: 'source', value: 'popup' },
    ]);
  });

  it('keeps everything after the first colon as the value', () => {
    expect(parseTagValue('link:https://x.y/z')).toEqual([{ category: 'link', value: 'https://x.y/z' }]);
  });

  it('drops duplicates, empty pairs and pairs without a category or value', () => {
    expect(parseTagValue('a:1,,a:1, :2,b:, c')).toEqual([{ category: 'a', value: '1' }]);
  });

  it('reads an empty string as no tags', () => {
    expect(parseTagValue('')).toEqual([]);
  });
});
