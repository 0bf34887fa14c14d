/**
 * A record whose event was never queued (the process died between the two, or the queue failed and the table then
 * failed the removal): the caller's retry of the same event, answered 304, must still get the event queued. The fake
 * queue drops a message whose store + source_id it already took, as SQS FIFO does within its deduplication window.
 */
import { describe, expect, it } from 'vitest';
import {
  type AcceptDeps,
  acceptEvent,
  type IncomingEvent,
  REQUEUE_WINDOW_MS,
} from '#shared/domain/ingest/accept-event.ts';
import type { AuthenticatedStore } from '#shared/domain/stores/model.ts';
import { AppError } from '#shared/errors.ts';
import { MemoryEventLog, MemoryIngestQueue } from '#test/support/memory/ingest.ts';
import { MemoryRateLimiter } from '#test/support/memory/stores.ts';

const limiter = new MemoryRateLimiter();
const store: AuthenticatedStore = { storeId: 'st_AAAAAAAAAAAAAAAAAAAA', type: 'direct' };
const event = (firstName = 'Ada'): IncomingEvent => ({
  endpoint: 'customers/create',
  source_id: 'src-1',
  data: { id: 'c1', email: 'ada@example.com', created_at: 1_700_000_000, first_name: firstName },
});

const setup = () => {
  const events = new MemoryEventLog();
  const queue = new MemoryIngestQueue();
  const clock = { ms: 1_700_000_000_000, now: () => clock.ms };
  const deps: AcceptDeps = { events, queue, limiter, clock, onLostRecord: () => undefined };
  return { events, queue, clock, deps };
};

/** The record of `event()` is written, its send never happened (the queue failed, then the table failed too). */
const strandedRecord = async (deps: AcceptDeps, events: MemoryEventLog, queue: MemoryIngestQueue) => {
  queue.failures = 1;
  events.failForget = true;
  await expect(acceptEvent(deps, store, 'general', event())).rejects.toBeInstanceOf(AppError);
  events.failForget = false;
  expect(events.records.size).toBe(1);
  expect(queue.sent).toEqual([]);
};

describe('a record whose event was never queued', () => {
  it('gets the event queued by the retry of the same event, answered 304', async () => {
    const { deps, events, queue, clock } = setup();
    await strandedRecord(deps, events, queue);
    const recordedAt = clock.ms;
    clock.ms += 30_000;
    expect(await acceptEvent(deps, store, 'general', event())).toBe('duplicate');
    expect(queue.sent).toHaveLength(1);
    // The message is the original one: accepted when it was recorded.
    expect(queue.sent[0]?.message).toMatchObject({ sourceId: 'src-1', acceptedAt: recordedAt, data: event().data });
  });

  it('is not queued by a duplicate with other data, nor by a retry after the window', async () => {
    const { deps, events, queue, clock } = setup();
    await strandedRecord(deps, events, queue);
    expect(await acceptEvent(deps, store, 'general', event('Someone else'))).toBe('duplicate');
    clock.ms += REQUEUE_WINDOW_MS + 1;
    expect(await acceptEvent(deps, store, 'general', event())).toBe('duplicate');
    expect(queue.sent).toEqual([]);
  });

  it('answers a retryable error when the queue refuses the retry, and the next retry queues it', async () => {
    const { deps, events, queue } = setup();
    await strandedRecord(deps, events, queue);
    queue.failures = 1;
    const error = await acceptEvent(deps, store, 'general', event()).catch((e: unknown) => e);
    expect((error as AppError).kind).toBe('unavailable');
    expect(await acceptEvent(deps, store, 'general', event())).toBe('duplicate');
    expect(queue.sent).toHaveLength(1);
  });
});

describe('a record whose event was queued', () => {
  it('stays queued once: the retry of the same event is dropped by the queue', async () => {
    const { deps, queue } = setup();
    expect(await acceptEvent(deps, store, 'general', event())).toBe('accepted');
    expect(await acceptEvent(deps, store, 'general', event())).toBe('duplicate');
    expect(queue.calls).toBe(2);
    expect(queue.sent).toHaveLength(1);
  });

  it('is not sent again for a duplicate with other data', async () => {
    const { deps, queue } = setup();
    await acceptEvent(deps, store, 'general', event());
    expect(await acceptEvent(deps, store, 'general', event('Someone else'))).toBe('duplicate');
    expect(queue.calls).toBe(1);
  });
});
