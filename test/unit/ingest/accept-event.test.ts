/**
 * Accepting an event at the edge (architecture §5, "Event ingestion") with in-memory ports: one record per store +
 * source_id, then one message in the entity's FIFO group; a queue failure removes the record so a retry is accepted.
 */
import { describe, expect, it } from 'vitest';
import {
  type AcceptDeps,
  acceptEvent,
  GUEST_VIEW_LANES,
  type IncomingEvent,
  messageGroupOf,
} from '#shared/domain/ingest/accept-event.ts';
import type { AuthenticatedStore } from '#shared/domain/stores/model.ts';
import { AppError } from '#shared/errors.ts';
import { LIMITS } from '#shared/limits.ts';
import { MemoryEventLog, MemoryIngestQueue } from '#test/support/memory/ingest.ts';
import { MemoryRateLimiter } from '#test/support/memory/stores.ts';

const setup = () => {
  const events = new MemoryEventLog();
  const queue = new MemoryIngestQueue();
  const limiter = new MemoryRateLimiter();
  const lost: { storeId: string; sourceId: string }[] = [];
  const deps: AcceptDeps = {
    events,
    queue,
    limiter,
    clock: { now: () => 1_700_000_000_000 },
    onLostRecord: (_, detail) => lost.push(detail),
  };
  return { events, queue, limiter, lost, deps };
};

const store: AuthenticatedStore = { storeId: 'st_AAAAAAAAAAAAAAAAAAAA', type: 'direct' };
const event = (sourceId = 'src-1', id = 'c1'): IncomingEvent => ({
  endpoint: 'customers/create',
  source_id: sourceId,
  data: { id, email: 'ada@example.com', created_at: 1_700_000_000 },
});

const captureError = async (promise: Promise<unknown>): Promise<unknown> => {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
};

describe('acceptEvent', () => {
  it('records the event and queues it with its payload in the entity group', async () => {
    const { deps, queue, events } = setup();
    expect(await acceptEvent(deps, store, 'general', event())).toBe('accepted');
    expect(events.records.size).toBe(1);
    expect(queue.sent).toHaveLength(1);
    expect(queue.sent[0]?.message).toEqual({
      v: 1,
      storeId: store.storeId,
      sourceId: 'src-1',
      endpoint: 'customers/create',
      interface: 'general',
      acceptedAt: 1_700_000_000_000,
      storeType: store.type,
      data: event().data,
    });
    expect(queue.sent[0]?.groupKey).toBe(messageGroupOf(store.storeId, 'customers/create', event().data));
  });

  it('answers duplicate for a source_id seen before and sends nothing', async () => {
    const { deps, queue } = setup();
    await acceptEvent(deps, store, 'general', event());
    expect(await acceptEvent(deps, store, 'general', event('src-1', 'other'))).toBe('duplicate');
    expect(queue.sent).toHaveLength(1);
  });

  it('accepts the same source_id from another store', async () => {
    const { deps, queue } = setup();
    await acceptEvent(deps, store, 'general', event());
    expect(await acceptEvent(deps, { storeId: 'st_BBBBBBBBBBBBBBBBBBBB', type: 'direct' }, 'general', event())).toBe(
      'accepted',
    );
    expect(queue.sent).toHaveLength(2);
  });

  it('forgets the record and throws a retryable unavailable error when the queue refuses the event', async () => {
    const { deps, queue, events, lost } = setup();
    queue.failures = 1;
    const error = await captureError(acceptEvent(deps, store, 'general', event()));
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).kind).toBe('unavailable');
    expect((error as AppError).cause).toBeInstanceOf(Error);
    expect(events.records.size).toBe(0);
    expect(lost).toEqual([]);
    // The caller's retry is accepted, not answered as a duplicate.
    expect(await acceptEvent(deps, store, 'general', event())).toBe('accepted');
    expect(queue.sent).toHaveLength(1);
  });

  it('charges new events to the rate limit and duplicates to a budget of their own', async () => {
    const { deps, limiter } = setup();
    await acceptEvent(deps, store, 'general', event());
    for (let i = 0; i < 5; i++) expect(await acceptEvent(deps, store, 'general', event())).toBe('duplicate');
    expect(Object.fromEntries(limiter.taken)).toEqual({
      [`${store.storeId}#general`]: 1,
      [`${store.storeId}#general#duplicates`]: 5,
    });
  });

  it('sends a flood of duplicates to the queue at most once, and answers 429 past their budget', async () => {
    const { deps, limiter, queue } = setup();
    limiter.honourLimits = true;
    await acceptEvent(deps, store, 'general', event());
    const answers: string[] = [];
    for (let i = 0; i < 400; i++) {
      answers.push(await acceptEvent(deps, store, 'general', event()).catch((error: AppError) => `${error.kind}`));
    }
    expect(answers.filter((answer) => answer === 'duplicate')).toHaveLength(LIMITS.duplicatesPerSecond);
    expect(answers.filter((answer) => answer === 'rate_limited')).toHaveLength(400 - LIMITS.duplicatesPerSecond);
    // The event and one re-send by the first duplicate (in case the first send was lost); none after that.
    expect(queue.calls).toBe(2);
  });

  it('refuses a new event over the rate limit with a retry-after and forgets its record', async () => {
    const { deps, limiter, queue, events } = setup();
    limiter.allow = 1;
    await acceptEvent(deps, store, 'general', event('src-1', 'c1'));
    const error = await captureError(acceptEvent(deps, store, 'general', event('src-2', 'c2')));
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).kind).toBe('rate_limited');
    expect((error as AppError).retryAfterSeconds).toBe(1);
    expect(queue.sent).toHaveLength(1);
    expect([...events.records.values()].map((e) => e.sourceId)).toEqual(['src-1']);
    // Once the window turns over, the retried event is accepted rather than answered as a duplicate.
    limiter.allow = Number.POSITIVE_INFINITY;
    expect(await acceptEvent(deps, store, 'general', event('src-2', 'c2'))).toBe('accepted');
  });

  it('reports a record it could not remove after a queue failure', async () => {
    const { deps, queue, events, lost } = setup();
    queue.failures = 1;
    events.failForget = true;
    const error = await captureError(acceptEvent(deps, store, 'general', event()));
    expect((error as AppError).kind).toBe('unavailable');
    expect(lost).toEqual([{ storeId: store.storeId, sourceId: 'src-1' }]);
  });
});

describe('messageGroupOf', () => {
  const storeId = 'st_AAAAAAAAAAAAAAAAAAAA';

  it('puts the events of one entity in the same group, whatever the endpoint of its family', () => {
    const group = messageGroupOf(storeId, 'customers/create', { id: 'c1' });
    expect(messageGroupOf(storeId, 'customers/update', { id: 'c1', city: 'Oslo' })).toBe(group);
    expect(messageGroupOf(storeId, 'customers', { id: 'c1' })).toBe(group);
  });

  it('groups a cart by its token for create and update', () => {
    expect(messageGroupOf(storeId, 'carts/create', { token: 't1' })).toBe(
      messageGroupOf(storeId, 'carts/update', { token: 't1', id: 'other' }),
    );
  });

  it('puts different entities, families and stores in different groups', () => {
    const group = messageGroupOf(storeId, 'customers/create', { id: 'c1' });
    expect(messageGroupOf(storeId, 'customers/create', { id: 'c2' })).not.toBe(group);
    expect(messageGroupOf(storeId, 'products/create', { id: 'c1' })).not.toBe(group);
    expect(messageGroupOf('st_BBBBBBBBBBBBBBBBBBBB', 'customers/create', { id: 'c1' })).not.toBe(group);
  });

  it('uses only the characters SQS allows and at most 128 of them, whatever the id holds', () => {
    const ids = ['c1', 'ünïcödé ✓', 'a b\tc\nd', 'x'.repeat(1000), '#/:?&'];
    for (const id of ids) {
      const group = messageGroupOf(storeId, 'customers/update', { id });
      expect(group.length).toBeLessThanOrEqual(128);
      // SQS MessageGroupId: alphanumerics and punctuation !"#$%&'()*+,-./:;<=>?@[\]^_`{|}~
      expect(group).toMatch(/^[A-Za-z0-9!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]+$/);
    }
  });

  it('orders a back-in-stock subscription and the restock of its product in one group', () => {
    expect(messageGroupOf(storeId, 'products/back_in_stock', { product_id: 'p9', email: 'a@b.c' })).toBe(
      messageGroupOf(storeId, 'products/restock', { product_id: 'p9' }),
    );
    expect(messageGroupOf(storeId, 'products/restock', { product_id: 'p9' })).not.toBe(
      messageGroupOf(storeId, 'products/restock', { product_id: 'p10' }),
    );
  });

  it("spreads a store's anonymous page views over several groups and keeps a known visitor's views in one", () => {
    const view = (requestId: string, extra: Record<string, unknown> = {}) => ({
      requestId,
      type: 'page',
      includeProduct: 0,
      page: { url: `https://shop.example/p/${requestId}`, title: 't' },
      ...extra,
    });
    const guestGroups = new Set(
      Array.from({ length: 200 }, (_, i) => messageGroupOf(storeId, 'page/viewed', view(`r-${i}`))),
    );
    expect(guestGroups.size).toBe(GUEST_VIEW_LANES);
    // The same view (a retry) lands in the same group, so SQS's deduplication and the worker see it in one lane.
    expect(messageGroupOf(storeId, 'page/viewed', view('r-7'))).toBe(
      messageGroupOf(storeId, 'page/viewed', view('r-7')),
    );
    // A logged-in visitor's views stay in that customer's single group, whatever the request.
    const known = new Set(
      Array.from({ length: 50 }, (_, i) =>
        messageGroupOf(storeId, 'page/viewed', view(`k-${i}`, { customerId: 'c42' })),
      ),
    );
    expect(known.size).toBe(1);
    const byEmail = new Set(
      Array.from({ length: 50 }, (_, i) =>
        messageGroupOf(storeId, 'page/viewed', { email: 'a@b.c', url: `https://shop.example/${i}`, timestamp: i }),
      ),
    );
    expect(byEmail.size).toBe(1);
    // The lanes are the store's own: another store's guest views never share them.
    expect(guestGroups.has(messageGroupOf('st_BBBBBBBBBBBBBBBBBBBB', 'page/viewed', view('r-7')))).toBe(false);
  });

  it('counts the publishable key apart: a flooded storefront key leaves the store key its whole budget', async () => {
    const { deps, limiter } = setup();
    limiter.honourLimits = true;
    const publishable: AuthenticatedStore = {
      ...store,
      publishable: { allowedOrigins: ['https://shop.example'], linkHosts: [] },
    };
    for (let i = 0; i < LIMITS.eventsPerSecond; i++) {
      expect(await acceptEvent(deps, publishable, 'headless', event(`pk-${i}`, `v-${i}`))).toBe('accepted');
    }
    const flooded = await captureError(acceptEvent(deps, publishable, 'headless', event('pk-over', 'v-over')));
    expect(flooded).toBeInstanceOf(AppError);
    expect((flooded as AppError).kind).toBe('rate_limited');
    for (let i = 0; i < LIMITS.eventsPerSecond; i++) {
      expect(await acceptEvent(deps, store, 'headless', event(`store-${i}`, `c-${i}`))).toBe('accepted');
    }
  });
});
