/** Segment facts and definitions: what conditions read, when a time window flips, and what a definition may say. */
import { describe, expect, it } from 'vitest';
import { evaluate } from '#shared/domain/flows/conditions.ts';
import { DAY_MS, nextFlip, segmentFacts } from '#shared/domain/segments/facts.ts';
import {
  type ContactStats,
  emptyStats,
  ORDERS_KEPT,
  orderFact,
  orderTotals,
  withOrder,
} from '#shared/domain/segments/model.ts';
import { parseSegmentDefinition } from '#shared/domain/segments/segment-schema.ts';
import { LIMITS } from '#shared/limits.ts';
import { contactOf, SEGMENT_STORE } from '#test/support/memory/segments.ts';

const NOW = Date.UTC(2026, 5, 1);

const statsWith = (
  orders: Record<string, { total: number; at: number; counted?: boolean }>,
  extra: Partial<ContactStats> = {},
) => {
  let stats = emptyStats(SEGMENT_STORE, 'c1');
  for (const [id, order] of Object.entries(orders)) stats = withOrder(stats, id, { counted: true, ...order });
  return { ...stats, ...extra };
};

describe('segment facts', () => {
  it('sums what the contact spent on orders not cancelled, voided or refunded, and counts them', async () => {
    const paid = orderFact({ status: 'paid', details: { total_price: '60.50' } }, NOW);
    const cancelled = orderFact({ status: 'cancelled', details: { total_price: '100' } }, NOW);
    const stats = withOrder(withOrder(emptyStats(SEGMENT_STORE, 'c1'), 'o1', paid), 'o2', cancelled);
    const facts = segmentFacts(contactOf('c1'), stats, NOW);
    expect(await facts('contact.total_spent')).toBe(60.5);
    expect(await facts('contact.orders_placed')).toBe(1);
    // The same order again (a redelivered event, a status change) replaces its fact instead of adding one.
    const refunded = withOrder(stats, 'o1', orderFact({ status: 'refunded', details: { total_price: '60.50' } }, NOW));
    expect(orderTotals(refunded)).toEqual({ count: 0, total: 0, lastAt: undefined });
  });

  it('dates an order by its created_at (seconds or milliseconds), else by when it was first seen', () => {
    expect(orderFact({ status: 'paid', details: { created_at: 1_700_000_000 } }, NOW).at).toBe(1_700_000_000_000);
    expect(orderFact({ status: 'paid', details: { created_at: 1_700_000_000_123 } }, NOW).at).toBe(1_700_000_000_123);
    expect(orderFact({ status: 'paid', details: {} }, NOW).at).toBe(NOW);
  });

  it('reads whole days since the last order, open and click; absent when it never happened', async () => {
    const stats = statsWith({ o1: { total: 5, at: NOW - 30 * DAY_MS + 1 } }, { lastOpenAt: NOW - 2.5 * DAY_MS });
    const facts = segmentFacts(contactOf('c1'), stats, NOW);
    expect(await facts('activity.days_since_last_order')).toBe(29);
    expect(await facts('activity.days_since_last_open')).toBe(2);
    expect(await facts('activity.days_since_last_click')).toBeUndefined();
    const recent = {
      match: 'all',
      conditions: [{ field: 'activity.days_since_last_order', op: 'less_than', value: 30 }],
    } as const;
    expect((await evaluate(recent, facts)).holds).toBe(true);
    expect((await evaluate(recent, segmentFacts(contactOf('c1'), stats, NOW + 1))).holds).toBe(false);
  });

  it('reads the contact record as flows do, and nothing at all for a contact the store no longer has', async () => {
    const contact = contactOf('c1', { countryCode: 'FR', platformTags: ['vip'], attributes: { tier: { level: 3 } } });
    const facts = segmentFacts(contact, undefined, NOW);
    expect(await facts('contact.country_code')).toBe('FR');
    expect(await facts('contact.tags')).toEqual(['vip']);
    expect(await facts('contact.attributes.tier.level')).toBe(3);
    expect(await facts('contact.total_spent')).toBe(0);
    expect(await segmentFacts(undefined, undefined, NOW)('contact.total_spent')).toBeUndefined();
  });

  it('finds the next moment a time window can flip: the threshold day, and the day after for greater_than', () => {
    const lastOrder = NOW - 10 * DAY_MS;
    const stats = statsWith({ o1: { total: 5, at: lastOrder } });
    const within = {
      match: 'all',
      conditions: [{ field: 'activity.days_since_last_order', op: 'less_than', value: 30 }],
    } as const;
    const lapsed = {
      match: 'all',
      conditions: [{ field: 'activity.days_since_last_order', op: 'greater_than', value: 60 }],
    } as const;
    expect(nextFlip([within], stats, NOW)).toBe(lastOrder + 30 * DAY_MS);
    expect(nextFlip([lapsed], stats, NOW)).toBe(lastOrder + 60 * DAY_MS);
    expect(nextFlip([within, lapsed], stats, lastOrder + 30 * DAY_MS)).toBe(lastOrder + 31 * DAY_MS);
    // Nothing can flip: no windowed condition, or the contact never ordered.
    expect(
      nextFlip([{ match: 'all', conditions: [{ field: 'contact.city', op: 'exists' }] }], stats, NOW),
    ).toBeUndefined();
    expect(nextFlip([within], undefined, NOW)).toBeUndefined();
  });

  it(`keeps the latest ${ORDERS_KEPT} orders one by one and sums the older ones`, () => {
    let stats = emptyStats(SEGMENT_STORE, 'c1');
    for (let i = 0; i <= ORDERS_KEPT; i++) stats = withOrder(stats, `o${i}`, { total: 1, at: NOW + i, counted: true });
    expect(Object.keys(stats.orders)).toHaveLength(ORDERS_KEPT);
    expect(stats.orders.o0).toBeUndefined();
    expect(orderTotals(stats)).toEqual({ count: ORDERS_KEPT + 1, total: ORDERS_KEPT + 1, lastAt: NOW + ORDERS_KEPT });
  });
});

describe('segment definitions', () => {
  const group = (conditions: unknown[]) => ({ match: 'all', conditions });

  it('takes a name and a condition group of segment fields', () => {
    const { definition, revision } = parseSegmentDefinition({
      name: '  Gold  ',
      conditions: group([
        { field: 'contact.category_tags', op: 'contains', value: 'level:gold' },
        { field: 'contact.attributes.points', op: 'greater_than', value: 100 },
      ]),
      revision: 2,
      id: 'seg_ignored',
      count: 5,
    });
    expect(definition.name).toBe('Gold');
    expect(definition.conditions.conditions).toHaveLength(2);
    expect(revision).toBe(2);
  });

  it.each([
    [
      'a field of a trigger',
      group([{ field: 'event.total', op: 'exists' }]),
      'conditions.conditions[0].field event.total is not a segment field',
    ],
    [
      'a field of flow activity',
      group([{ field: 'activity.order_paid_since_trigger', op: 'exists' }]),
      'is not a segment field',
    ],
    [
      'a nested unknown field',
      group([group([{ field: 'contact.nope', op: 'exists' }])]),
      'conditions.conditions[0].conditions[0].field contact.nope',
    ],
    ['no conditions', group([]), 'conditions.conditions must have at least one condition'],
    ['an operator without its value', group([{ field: 'contact.city', op: 'equals' }]), 'value is required for equals'],
    [
      'an unknown body field',
      { name: 'x', conditions: group([{ field: 'contact.city', op: 'exists' }]), colour: 'red' },
      'unknown field "colour"',
    ],
  ])('refuses %s with a message naming it', (_what, body, message) => {
    const input = 'name' in (body as object) ? body : { name: 'x', conditions: body };
    expect(() => parseSegmentDefinition(input)).toThrow(message);
  });

  it(`refuses more than ${LIMITS.conditionsPerSegment} conditions in all, counting nested groups`, () => {
    const eleven = Array.from({ length: 11 }, (_, i) => ({ field: 'contact.city', op: 'equals', value: `c${i}` }));
    expect(() => parseSegmentDefinition({ name: 'x', conditions: group([group(eleven), group(eleven)]) })).toThrow(
      `conditions holds 22 conditions; a segment may have at most ${LIMITS.conditionsPerSegment}`,
    );
  });
});
