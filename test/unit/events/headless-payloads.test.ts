/**
 * The headless interface's payload validation (spec "Headless event payloads"): the fields a headless payload shares
 * with the general interface's payload of the same endpoint are checked by the general schema itself, so a value the
 * general interface refuses is refused here too, naming the field (rendered `{success: false, code: 412, message}`),
 * and never reaches the worker.
 */
import { describe, expect, it } from 'vitest';
import { parseGeneralEvent, parseHeadlessEvent } from '#shared/domain/events/envelope.ts';
import { AppError } from '#shared/errors.ts';

/** The validation message `parse` throws for `body` (fails the test when it does not throw one). */
const refusal = (parse: (body: unknown) => unknown, body: unknown): string => {
  try {
    parse(body);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).kind).toBe('validation');
    return (error as AppError).message;
  }
  throw new Error(`expected ${JSON.stringify(body)} to be refused`);
};

const headlessCustomer = (extra: Record<string, unknown>) => ({
  endpoint: 'customers/create',
  source_id: 'src-1',
  data: { id: 'c1', created_at: 1_700_000_000, email: 'ada@example.com', ...extra },
});

const headlessCart = (extra: Record<string, unknown>, line: Record<string, unknown> = {}) => ({
  endpoint: 'carts/create',
  source_id: 'src-1',
  data: {
    token: 'cart-1',
    checkout_url: 'https://shop.example/cart/cart-1',
    timestamp: 1_700_000_000,
    line_items: [{ title: 'Lamp', quantity: 1, price: '19.90', product_id: 'p1', ...line }],
    ...extra,
  },
});

describe('headless customers/create: the general customer fields, by the general schema', () => {
  it.each([
    ['tag_value: 5', { tag_value: 5 }, 'data.tag_value must be a string'],
    ['tags: {}', { tags: {} }, 'data.tags must be an array of strings'],
    ['gender: []', { gender: [] }, 'data.gender must be a string'],
    ['tags: "vip"', { tags: 'vip' }, 'data.tags must be an array of strings'],
  ])('refuses %s naming the field, as the general interface does', (_, extra, message) => {
    expect(refusal(parseHeadlessEvent, headlessCustomer(extra))).toBe(message);
    // The same words as the general interface's: one schema, not a copy.
    expect(refusal(parseGeneralEvent, { ...headlessCustomer(extra), endpoint: 'customers/update' })).toBe(message);
  });

  it.each([
    [
      'tag_value not in category:value pairs',
      { tag_value: 'vip' },
      'data.tag_value must be "category:value" pairs separated by commas',
    ],
    [
      'a default_address that is not an object',
      { default_address: 'Main St 1' },
      'data.default_address must be an object',
    ],
    ['an ignore_flow other than Y or N', { ignore_flow: true }, 'data.ignore_flow must be "Y" or "N"'],
    [
      'a locale, birth_date or city that is not a string',
      { locale: 1, birth_date: {}, city: [] },
      'data.locale must be a string; data.birth_date must be a string; data.city must be a string',
    ],
    [
      'a consent updatedAt that is not a timestamp',
      { email_marketing_consent: { state: 'subscribed', updatedAt: 'soon' } },
      'data.email_marketing_consent.updatedAt must be an integer Unix timestamp in seconds or milliseconds',
    ],
  ])('refuses %s', (_, extra, message) => {
    expect(refusal(parseHeadlessEvent, headlessCustomer(extra))).toBe(message);
  });

  it('accepts and keeps valid shared fields as the general interface normalises them', () => {
    const event = parseHeadlessEvent(
      headlessCustomer({ tags: ['vip', 'vip'], tag_value: 'level:gold', gender: 'female', city: null, loyalty: 3 }),
    );
    expect(event.data).toMatchObject({ tags: ['vip', 'vip'], tag_value: 'level:gold', gender: 'female', loyalty: 3 });
    expect(event.data.city).toBeUndefined();
  });

  it("keeps the headless table's own rule where it names the field (phone at most 64 characters)", () => {
    expect(refusal(parseHeadlessEvent, headlessCustomer({ email: undefined, phone: 'x'.repeat(65) }))).toBe(
      'data.phone must be at most 64 characters',
    );
  });

  it('still requires id and created_at, and an email or a phone', () => {
    expect(refusal(parseHeadlessEvent, headlessCustomer({ created_at: undefined }))).toBe(
      'data.created_at is required',
    );
    expect(refusal(parseHeadlessEvent, headlessCustomer({ email: undefined }))).toBe(
      'data.email is required (or data.phone)',
    );
  });
});

describe('the other headless endpoints: the fields they share with the general payload', () => {
  it('carts: the general cart fields and line fields', () => {
    expect(refusal(parseHeadlessEvent, headlessCart({ phone: 5 }))).toBe('data.phone must be a string');
    expect(refusal(parseHeadlessEvent, headlessCart({ country_code: [] }))).toBe('data.country_code must be a string');
    expect(refusal(parseHeadlessEvent, headlessCart({ ignore_flow: 'yes' }))).toBe(
      'data.ignore_flow must be "Y" or "N"',
    );
    expect(refusal(parseHeadlessEvent, headlessCart({}, { variant_id: {} }))).toBe(
      'data.line_items[0].variant_id must be a non-empty string',
    );
    expect(refusal(parseHeadlessEvent, headlessCart({}, { line_price: '$5' }))).toBe(
      'data.line_items[0].line_price must be a decimal number without currency symbol',
    );
    // The line's variant is optional here, as the headless table does not ask for it.
    expect(parseHeadlessEvent(headlessCart({ ignore_flow: 'Y' })).data.ignore_flow).toBe('Y');
  });

  it('products/back_in_stock: variant_id and ignore_flow', () => {
    const body = (extra: Record<string, unknown>) => ({
      endpoint: 'products/back_in_stock',
      source_id: 'src-1',
      data: { product_id: 'p1', email: 'w@example.com', ...extra },
    });
    expect(refusal(parseHeadlessEvent, body({ variant_id: [] }))).toBe('data.variant_id must be a non-empty string');
    expect(refusal(parseHeadlessEvent, body({ ignore_flow: 1 }))).toBe('data.ignore_flow must be "Y" or "N"');
    expect(parseHeadlessEvent(body({ variant_id: 42 })).data.variant_id).toBe('42');
  });

  it('page/viewed: the general page view fields', () => {
    const body = (extra: Record<string, unknown>) => ({
      endpoint: 'page/viewed',
      source_id: 'src-1',
      data: {
        requestId: 'r1',
        type: 'page',
        includeProduct: 0,
        page: { url: 'https://shop.example/', title: 'Home' },
        ...extra,
      },
    });
    expect(refusal(parseHeadlessEvent, body({ url: 5 }))).toBe('data.url must be a string');
    expect(refusal(parseHeadlessEvent, body({ email: 'nobody' }))).toBe('data.email must be an email address');
    expect(parseHeadlessEvent(body({ email: 'Ada@Example.com' })).data.email).toBe('ada@example.com');
  });
});
