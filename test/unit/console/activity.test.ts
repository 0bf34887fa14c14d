/**
 * The console's activity counts (`shared/domain/console/activity.ts`) over the memory counters: events by endpoint
 * (headless apart, failures apart, most first) and webhook attempts with their success rate, within the range only.
 */
import { describe, expect, it } from 'vitest';
import { countsReader } from '#shared/domain/attribution/read-counts.ts';
import {
  countDeliveryAttempt,
  countEventApplied,
  countEventFailed,
  readActivity,
} from '#shared/domain/console/activity.ts';
import { memoryAttribution } from '#test/support/memory/attribution.ts';

const DAY = Date.parse('2026-11-20T10:00:00Z');
const NEXT_WEEK = DAY + 7 * 86_400_000;

describe('console activity', () => {
  it('counts applied events by endpoint, headless apart, most first, and failed events apart', async () => {
    const { store } = memoryAttribution();
    for (const endpoint of ['carts/create', 'carts/update', 'carts/update', 'page/viewed']) {
      await countEventApplied(store, { storeId: 'st_a', endpoint, interface: 'general' }, DAY);
    }
    await countEventApplied(store, { storeId: 'st_a', endpoint: 'page/viewed', interface: 'headless' }, DAY);
    await countEventApplied(store, { storeId: 'st_b', endpoint: 'orders/paid', interface: 'general' }, DAY);
    await countEventApplied(store, { storeId: 'st_a', endpoint: 'orders/paid', interface: 'general' }, NEXT_WEEK);
    await countEventFailed(store, 'st_a', DAY);

    const activity = await readActivity(countsReader(store, 'st_a'), { from: '2026-11-20', to: '2026-11-21' });
    expect(activity.events).toEqual([
      { kind: 'carts/update', count: 2 },
      { kind: 'carts/create', count: 1 },
      { kind: 'headless page/viewed', count: 1 },
      { kind: 'page/viewed', count: 1 },
    ]);
    expect(activity.eventsApplied).toBe(5);
    expect(activity.eventsFailed).toBe(1);
    expect((await readActivity(countsReader(store, 'st_a'), { from: '2026-11-27', to: '2026-11-27' })).events).toEqual([
      { kind: 'orders/paid', count: 1 },
    ]);
  });

  it('counts webhook attempts by outcome with the success rate, none without attempts', async () => {
    const { store } = memoryAttribution();
    expect(
      (await readActivity(countsReader(store, 'st_a'), { from: '2026-11-20', to: '2026-11-20' })).webhooks,
    ).toEqual({
      attempts: 0,
      delivered: 0,
      retried: 0,
      failed: 0,
      successRate: undefined,
    });
    for (const outcome of ['retried', 'retried', 'delivered', 'delivered', 'delivered', 'failed'] as const) {
      await countDeliveryAttempt(store, 'st_a', outcome, DAY);
    }
    expect(
      (await readActivity(countsReader(store, 'st_a'), { from: '2026-11-20', to: '2026-11-20' })).webhooks,
    ).toEqual({
      attempts: 6,
      delivered: 3,
      retried: 2,
      failed: 1,
      successRate: 0.5,
    });
  });
});
