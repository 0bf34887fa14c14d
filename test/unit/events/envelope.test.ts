/**
 * The general interface's envelope and payload validation (spec "Event envelope", "General event payloads"): what a
 * caller is told when a request is refused, and what an accepted request becomes.
 */
import { describe, expect, it } from 'vitest';
import { parseGeneralEvent } from '#shared/domain/events/envelope.ts';
import { AppError } from '#shared/errors.ts';

/** The validation message `parseGeneralEvent` throws for `body` (fails the test when it does not throw one). */
const refusal = (body: unknown): string => {
  try {
    parseGeneralEvent(body);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).kind).toBe('validation');
    return (error as AppError).message;
  }
  throw new Error(`expected ${JSON.stringify(body)} to be refused`);
};

const customer = (data: Record<string, unknown>, endpoint = 'customers/create') => ({
  endpoint,
  source_id: 'src-1',
  data: { id: 'c1', email: 'ada@example.com', created_at: 1_700_000_000, ...data },
});

const product = (data: Record<string, unknown>, endpoint = 'products/create') => ({
  endpoint,
  source_id: 'src-1',
  data: {
    id: 'p1',
    title: 'Lamp',
    src: 'https://shop.example/lamp.jpg',
    purchase_url: 'https://shop.example/lamp',
    variants: [{ id: 'v1', price: '19.90' }],
    ...data,
  },
});

describe('the event envelope', () => {
  it('refuses an unknown endpoint and lists the valid ones', () => {
    const message = refusal({ endpoint: 'customers/delete', source_id: 'a', data: {} });
    expect(message).toMatch(/^endpoint must be one of: /);
    expect(message).toContain('customers/create');
    expect(message).toContain('flow/notify');
  });

  it('requires source_id', () => {
    expect(refusal({ endpoint: 'customers/update', data: { id: 'c1' } })).toBe('source_id is required');
  });

  it('refuses an empty or blank source_id', () => {
    expect(refusal({ endpoint: 'customers/update', source_id: '', data: { id: 'c1' } })).toBe(
      'source_id must not be empty',
    );
    expect(refusal({ endpoint: 'customers/update', source_id: '   ', data: { id: 'c1' } })).toBe(
      'source_id must not be empty',
    );
  });

  it('accepts a source_id of 50 characters and refuses 51', () => {
    const fifty = 'x'.repeat(50);
    expect(parseGeneralEvent({ endpoint: 'customers/update', source_id: fifty, data: { id: 'c1' } }).source_id).toBe(
      fifty,
    );
    expect(refusal({ endpoint: 'customers/update', source_id: 'x'.repeat(51), data: { id: 'c1' } })).toBe(
      'source_id must be at most 50 characters',
    );
  });

  it('counts source_id characters as code points, so 50 emoji are valid', () => {
    const emoji = '😀'.repeat(50);
    expect(emoji.length).toBe(100); // UTF-16 code units
    expect(parseGeneralEvent({ endpoint: 'customers/update', source_id: emoji, data: { id: 'c1' } }).source_id).toBe(
      emoji,
    );
    expect(refusal({ endpoint: 'customers/update', source_id: '😀'.repeat(51), data: { id: 'c1' } })).toBe(
      'source_id must be at most 50 characters',
    );
  });

  it('refuses a source_id that is not a string', () => {
    expect(refusal({ endpoint: 'customers/update', source_id: 42, data: { id: 'c1' } })).toBe(
      'source_id must be a string',
    );
  });

  it.each([
    ['an array', []],
    ['a string', 'hello'],
    ['null', null],
  ])('refuses data given as %s', (_, data) => {
    expect(refusal({ endpoint: 'customers/update', source_id: 'a', data })).toBe('data must be an object');
  });

  it('requires data', () => {
    expect(refusal({ endpoint: 'customers/update', source_id: 'a' })).toBe('data is required');
  });

  it('refuses a body that is not a JSON object', () => {
    expect(refusal('hello')).toBe('body must be a JSON object');
    expect(refusal(null)).toBe('body must be a JSON object');
  });

  it('names every missing envelope field at once', () => {
    expect(refusal({})).toBe('endpoint is required; source_id is required; data is required');
  });
});

describe('customer payloads', () => {
  it('requires data.email for customers/create', () => {
    expect(refusal({ endpoint: 'customers/create', source_id: 'a', data: { id: 'c1', created_at: 1 } })).toBe(
      'data.email is required',
    );
  });

  it('requires data.email and data.created_at for customers too', () => {
    expect(refusal({ endpoint: 'customers', source_id: 'a', data: { id: 'c1' } })).toBe(
      'data.email is required; data.created_at is required',
    );
  });

  it('requires data.id', () => {
    expect(refusal(customer({ id: undefined }))).toBe('data.id is required');
  });

  it('passes customers/update with only an id', () => {
    const event = parseGeneralEvent({ endpoint: 'customers/update', source_id: 'a', data: { id: 'c1' } });
    expect(event.data).toEqual({ id: 'c1' });
  });

  it('keeps a numeric id as its decimal string', () => {
    expect(parseGeneralEvent({ endpoint: 'customers/update', source_id: 'a', data: { id: 42 } }).data.id).toBe('42');
  });

  it('refuses an unknown marketing consent state with the field path', () => {
    expect(refusal(customer({ email_marketing_consent: { state: 'yes' } }))).toBe(
      'data.email_marketing_consent.state must be one of: subscribed, not_subscribed, unsubscribed',
    );
  });

  it('accepts the three consent states', () => {
    for (const state of ['subscribed', 'not_subscribed', 'unsubscribed']) {
      const event = parseGeneralEvent(customer({ sms_marketing_consent: { state, updatedAt: 1_700_000_000 } }));
      expect(event.data.sms_marketing_consent).toEqual({ state, updatedAt: 1_700_000_000 });
    }
  });

  it('refuses a tag_value that is not category:value pairs', () => {
    expect(refusal(customer({ tag_value: 'vip' }))).toBe(
      'data.tag_value must be "category:value" pairs separated by commas',
    );
    expect(refusal(customer({ tag_value: 'level:gold, :silver' }))).toBe(
      'data.tag_value must be "category:value" pairs separated by commas',
    );
  });

  it('accepts category:value pairs separated by commas in tag_value', () => {
    expect(parseGeneralEvent(customer({ tag_value: 'level:gold, source:popup' })).data.tag_value).toBe(
      'level:gold, source:popup',
    );
  });

  it('normalises created_at in milliseconds to seconds', () => {
    expect(parseGeneralEvent(customer({ created_at: 1_700_000_000_123 })).data.created_at).toBe(1_700_000_000);
  });

  it('keeps created_at in seconds as it is, and reads a digit string as a number', () => {
    expect(parseGeneralEvent(customer({ created_at: 1_700_000_000 })).data.created_at).toBe(1_700_000_000);
    expect(parseGeneralEvent(customer({ created_at: '1700000000' })).data.created_at).toBe(1_700_000_000);
  });

  it('refuses a created_at that is not a timestamp', () => {
    expect(refusal(customer({ created_at: 'yesterday' }))).toBe(
      'data.created_at must be an integer Unix timestamp in seconds or milliseconds',
    );
  });

  it('lower-cases the email and refuses one that is not an address', () => {
    expect(parseGeneralEvent(customer({ email: ' Ada@Example.COM ' })).data.email).toBe('ada@example.com');
    expect(refusal(customer({ email: 'not-an-address' }))).toBe('data.email must be an email address');
  });

  it('treats null optional fields as absent', () => {
    const event = parseGeneralEvent(customer({ first_name: null, city: null }));
    expect(event.data).not.toHaveProperty('first_name', null);
    expect(event.data.first_name).toBeUndefined();
  });

  it('keeps unknown extra fields', () => {
    const event = parseGeneralEvent(customer({ loyalty: { points: 120 }, vip: true }));
    expect(event.data.loyalty).toEqual({ points: 120 });
    expect(event.data.vip).toBe(true);
  });
});

describe('product payloads', () => {
  it('requires at least one variant', () => {
    expect(refusal(product({ variants: [] }))).toBe('data.variants must have at least one element');
  });

  it('refuses a variant price with a currency symbol and names the path', () => {
    expect(refusal(product({ variants: [{ id: 'v1', price: '$10.00' }] }))).toBe(
      'data.variants[0].price must be a decimal number without currency symbol',
    );
    expect(refusal(product({ variants: [{ price: '1' }, { price: '10 €' }] }))).toBe(
      'data.variants[1].price must be a decimal number without currency symbol',
    );
  });

  it('keeps a numeric price as its decimal string', () => {
    const event = parseGeneralEvent(product({ variants: [{ id: 'v1', price: 19.9 }] }));
    expect(event.data.variants).toEqual([{ id: 'v1', price: '19.9' }]);
  });

  it('requires title, src and purchase_url', () => {
    expect(refusal(product({ title: undefined, src: undefined, purchase_url: undefined }))).toBe(
      'data.title is required; data.src is required; data.purchase_url is required',
    );
  });

  it('validates products/update and products like products/create', () => {
    expect(refusal(product({ variants: [] }, 'products/update'))).toBe('data.variants must have at least one element');
    expect(refusal(product({ variants: 'all' }, 'products'))).toBe('data.variants must be an array');
  });

  it('keeps unknown extra fields on the product and on its variants', () => {
    const event = parseGeneralEvent(product({ brand: 'Acme', variants: [{ id: 'v1', price: '5', weight: 2 }] }));
    expect(event.data.brand).toBe('Acme');
    expect(event.data.variants).toEqual([{ id: 'v1', price: '5', weight: 2 }]);
  });
});
