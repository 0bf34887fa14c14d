/** The ingest worker's one log line per batch: what the batch's events wrote and fired, then a fresh start. */
import { describe, expect, it } from 'vitest';
import { BatchSummary } from '#shared/domain/ingest/batch-summary.ts';

describe('BatchSummary', () => {
  it('counts the batch’s events, stores, entities written and triggers fired, and starts again once taken', () => {
    const summary = new BatchSummary();
    expect(summary.take()).toBeUndefined();
    summary.add('st_a', { applied: 'page_view', triggers: [] });
    summary.add('st_a', { applied: 'customer', triggers: ['customer_created'] });
    summary.add('st_b', { applied: 'page_view', triggers: [] });
    summary.add('st_b', { applied: 'order', triggers: ['order_paid'] });
    summary.add('st_c', { applied: 'customer', triggers: ['customer_created'] });
    expect(summary.take()).toEqual({
      events: 5,
      stores: 3,
      applied: { page_view: 2, customer: 2, order: 1 },
      triggers: { customer_created: 2, order_paid: 1 },
    });
    expect(summary.take()).toBeUndefined();
    summary.add('st_a', { applied: 'none', triggers: [] });
    expect(summary.take()).toEqual({ events: 1, stores: 1, applied: { none: 1 } });
  });
});
