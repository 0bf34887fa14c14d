/** Condition semantics (entry conditions and exit_if), as documented in docs/flows.md "How runs work". */
import { describe, expect, it } from 'vitest';
import { evaluate, type Facts } from '#shared/domain/flows/conditions.ts';
import { factsFor } from '#shared/domain/flows/facts.ts';
import type { Condition, ConditionGroup } from '#shared/domain/flows/flow.ts';
import { customerOf, fakes, triggerOf } from '#test/support/memory/flow-engine.ts';

const factsOf =
  (values: Record<string, unknown>): Facts =>
  async (field) =>
    values[field];

const holds = async (condition: Condition, values: Record<string, unknown>) =>
  (await evaluate({ match: 'all', conditions: [condition] }, factsOf(values))).holds;

describe('operators', () => {
  it('compares numbers and numeric strings as numbers, other text case-insensitively', async () => {
    expect(await holds({ field: 'a', op: 'equals', value: 19.9 }, { a: '19.90' })).toBe(true);
    expect(await holds({ field: 'a', op: 'equals', value: 'GOLD' }, { a: 'gold' })).toBe(true);
    expect(await holds({ field: 'a', op: 'equals', value: true }, { a: true })).toBe(true);
    expect(await holds({ field: 'a', op: 'equals', value: 'x' }, {})).toBe(false);
    expect(await holds({ field: 'a', op: 'not_equals', value: 'x' }, {})).toBe(true);
    expect(await holds({ field: 'a', op: 'not_equals', value: 'x' }, { a: 'X' })).toBe(false);
  });

  it('orders numbers only: a value that is not a number is neither greater nor less', async () => {
    expect(await holds({ field: 'a', op: 'greater_than', value: 100 }, { a: '150.5' })).toBe(true);
    expect(await holds({ field: 'a', op: 'less_than', value: 100 }, { a: 99 })).toBe(true);
    expect(await holds({ field: 'a', op: 'greater_than', value: 1 }, { a: 'many' })).toBe(false);
    expect(await holds({ field: 'a', op: 'less_than', value: 1 }, {})).toBe(false);
  });

  it('finds an element of a list, or a substring of a text, with contains', async () => {
    expect(await holds({ field: 'a', op: 'contains', value: 'vip' }, { a: ['new', 'VIP'] })).toBe(true);
    expect(await holds({ field: 'a', op: 'contains', value: 'lamp' }, { a: 'Desk Lamp' })).toBe(true);
    expect(await holds({ field: 'a', op: 'contains', value: 'x' }, { a: 5 })).toBe(false);
  });

  it('treats undefined, null, empty text, empty lists and false as not existing', async () => {
    for (const value of [undefined, null, '', [], false]) {
      expect(await holds({ field: 'a', op: 'exists' }, { a: value })).toBe(false);
      expect(await holds({ field: 'a', op: 'not_exists' }, { a: value })).toBe(true);
    }
    expect(await holds({ field: 'a', op: 'exists' }, { a: 0 })).toBe(true);
  });
});

describe('groups', () => {
  const group: ConditionGroup = {
    match: 'any',
    conditions: [
      { field: 'custom.level', op: 'equals', value: 'gold' },
      {
        match: 'all',
        conditions: [
          { field: 'custom.level', op: 'equals', value: 'silver' },
          { field: 'custom.points', op: 'greater_than', value: 100 },
        ],
      },
    ],
  };

  it('holds when any member holds, nested groups included', async () => {
    expect((await evaluate(group, factsOf({ 'custom.level': 'gold' }))).holds).toBe(true);
    expect((await evaluate(group, factsOf({ 'custom.level': 'silver', 'custom.points': 101 }))).holds).toBe(true);
  });

  it('reports the first condition tried when every member of an any group is false', async () => {
    expect(await evaluate(group, factsOf({ 'custom.level': 'bronze' }))).toEqual({
      holds: false,
      failed: { field: 'custom.level', op: 'equals', expected: 'gold', value: 'bronze' },
    });
  });

  it('cuts a long value seen to 200 characters in the verdict', async () => {
    const verdict = await evaluate(
      { match: 'all', conditions: [{ field: 'a', op: 'equals', value: 'b' }] },
      factsOf({ a: 'x'.repeat(500) }),
    );
    expect(verdict.holds ? '' : String(verdict.failed.value)).toHaveLength(201);
  });
});

describe('fields', () => {
  it('reads the event, the contact, custom data and activity since the trigger', async () => {
    const f = fakes();
    const contact = customerOf('c1', {
      countryCode: 'FR',
      platformTags: ['vip'],
      categoryTags: [{ category: 'style', value: 'modern' }],
      emailConsent: { state: 'subscribed' },
    });
    const trigger = triggerOf('order_paid', {
      subject: { type: 'order', id: 'o-1' },
      context: { order: { id: 'o-1', status: 'paid', total_price: '42.50', line_items: [{ product_id: 'p-9' }] } },
    });
    f.activity.push(
      {
        storeId: 'st',
        email: 'ada@example.com',
        triggerId: trigger.id,
        kind: 'order_paid',
        subject: { type: 'order', id: 'o-1' },
        status: 'paid',
        at: trigger.at,
      },
      {
        storeId: 'st',
        email: 'ada@example.com',
        triggerId: 'older',
        kind: 'order_fulfilled',
        subject: { type: 'order', id: 'o-0' },
        at: 1,
      },
    );
    const facts = factsFor(f.deps, trigger, 'ada@example.com', contact);
    expect(await facts('event.total')).toBe(42.5);
    expect(await facts('event.status')).toBe('paid');
    expect(await facts('event.product_ids')).toEqual(['p-9']);
    expect(await facts('event.order.total_price')).toBe('42.50');
    expect(await facts('contact.country')).toBe('FR');
    expect(await facts('contact.tags')).toEqual(['vip']);
    expect(await facts('contact.category_tags')).toEqual(['style:modern']);
    expect(await facts('contact.email_consent')).toBe('subscribed');
    expect(await facts('contact.order_count')).toBe(2);
    // The trigger's own order does not count as paid "since" it.
    expect(await facts('activity.order_paid_since_trigger')).toBe(false);
    expect(await facts('nonsense.field')).toBeUndefined();
  });

  it('sees a cart paid or checked out since the abandoned-cart trigger', async () => {
    const f = fakes();
    const trigger = triggerOf('abandoned_cart', { subject: { type: 'cart', id: 'c-1' } });
    const cart = {
      storeId: 'st',
      token: 'c-1',
      lineItems: [],
      ignoreFlow: false,
      attributes: {},
      createdAt: 1,
      updatedAt: trigger.at + 5,
      revision: 3,
    };
    f.carts.set('c-1', { ...cart, closed: { at: trigger.at + 5, by: 'payment' } });
    expect(await factsFor(f.deps, trigger, 'ada@example.com', undefined)('activity.order_paid_since_trigger')).toBe(
      true,
    );
    f.carts.set('c-1', { ...cart, reachedCheckoutAt: trigger.at + 5, closed: { at: trigger.at + 5, by: 'checkout' } });
    const facts = factsFor(f.deps, trigger, 'ada@example.com', undefined);
    expect(await facts('activity.checkout_since_trigger')).toBe(true);
    expect(await facts('activity.order_paid_since_trigger')).toBe(false);
  });
});
