/**
 * Counts off the hot paths (`shared/domain/attribution/queued-counts.ts`): a worker's batch queues its counts as one
 * message, a failed send keeps the message (its id too) for the next flush, and the counters worker counts each
 * message once, summing many into one write per store, scope and period.
 */
import { describe, expect, it } from 'vitest';
import { counterBuffer } from '#shared/domain/attribution/counter-buffer.ts';
import type { CountsMessage } from '#shared/domain/attribution/model.ts';
import type { AttributionStore, CountsClaims } from '#shared/domain/attribution/ports.ts';
import {
  applyCounts,
  MAX_COUNTS_PER_MESSAGE,
  parseCountsMessage,
  queuedCounters,
} from '#shared/domain/attribution/queued-counts.ts';
import { PermanentError } from '#shared/errors.ts';
import { memoryAttribution } from '#test/support/memory/attribution.ts';

/** A queue keeping what it was sent, refusing sends while `refusing`. */
const memoryQueue = () => {
  const sent: CountsMessage[] = [];
  const state = { refusing: false };
  return {
    sent,
    state,
    queue: {
      async send(message: CountsMessage) {
        if (state.refusing) throw new Error('SQS unavailable');
        // What goes on the queue is JSON: the worker reads back exactly that.
        const { invalid, ...read } = parseCountsMessage(JSON.stringify(message));
        expect(invalid).toBe(0);
        sent.push(read);
      },
    },
  };
};

const ids = () => {
  let n = 0;
  return () => `m${++n}`;
};

const memoryClaims = (): CountsClaims & { claimed: Set<string> } => {
  const claimed = new Set<string>();
  return {
    claimed,
    async claim(id) {
      if (claimed.has(id)) return false;
      claimed.add(id);
      return true;
    },
  };
};

/** The memory store, counting its item writes. */
const countedStore = () => {
  const { store } = memoryAttribution();
  const writes: string[] = [];
  const target: AttributionStore = {
    ...store,
    async addTo(storeId, scope, period, deltas) {
      writes.push(`${storeId} ${scope} ${period}`);
      await store.addTo(storeId, scope, period, deltas);
    },
  };
  return { store, target, writes };
};

describe('queuedCounters', () => {
  it('queues a batch’s counts as one message, summed per store, scope and day, and writes nothing itself', async () => {
    const { store, target, writes } = countedStore();
    const { queue, sent } = memoryQueue();
    const buffer = queuedCounters(target, queue, ids());
    for (let i = 0; i < 10; i++) await buffer.store.add('st_a', ['store', 'flow#f1'], '2026-11-25', { emailed: 1 });
    await buffer.store.add('st_b', ['events'], '2026-11-26', { 'page/viewed': 2 });
    await buffer.flush();

    expect(writes).toEqual([]);
    expect(await store.days('st_a', 'store', '2026-11-01', '2026-11-30')).toEqual([]);
    expect(sent).toEqual([
      {
        id: 'm1',
        counts: [
          ['st_a', 'store', '2026-11-25', { emailed: 10 }],
          ['st_a', 'flow#f1', '2026-11-25', { emailed: 10 }],
          ['st_b', 'events', '2026-11-26', { 'page/viewed': 2 }],
        ],
      },
    ]);

    // A batch that counted nothing sends nothing.
    await buffer.flush();
    expect(sent).toHaveLength(1);
  });

  it('keeps a message it could not send, with its id, and sends it again at the next flush beside the new counts', async () => {
    const { target } = countedStore();
    const { queue, sent, state } = memoryQueue();
    const failures: number[] = [];
    const buffer = queuedCounters(target, queue, ids(), (_error, kept) => failures.push(kept));
    await buffer.store.add('st_a', ['store'], '2026-11-25', { emailed: 1 });
    state.refusing = true;
    await buffer.flush();
    expect(sent).toEqual([]);
    expect(failures).toEqual([1]);

    state.refusing = false;
    await buffer.store.add('st_a', ['store'], '2026-11-25', { emailed: 1 });
    await buffer.flush();
    // The kept message keeps its id: had the failed send reached the queue after all, the worker counts it once.
    expect(sent).toEqual([
      { id: 'm1', counts: [['st_a', 'store', '2026-11-25', { emailed: 1 }]] },
      { id: 'm2', counts: [['st_a', 'store', '2026-11-25', { emailed: 1 }]] },
    ]);
  });

  it('splits a flush larger than one message', async () => {
    const { target } = countedStore();
    const { queue, sent } = memoryQueue();
    const buffer = queuedCounters(target, queue, ids());
    for (let i = 0; i < MAX_COUNTS_PER_MESSAGE + 3; i++) {
      await buffer.store.add(`st_${i}`, ['store'], '2026-11-25', { delivered: 1 });
    }
    await buffer.flush();
    expect(sent.map((m) => m.counts.length)).toEqual([MAX_COUNTS_PER_MESSAGE, 3]);
    expect(new Set(sent.map((m) => m.id)).size).toBe(2);
  });
});

describe('applyCounts (the counters worker)', () => {
  it('counts a message delivered twice once, and sums messages into one write per store, scope and period', async () => {
    const { store, target, writes } = countedStore();
    const claims = memoryClaims();
    const buffer = counterBuffer(target);
    const deps = { claims, counters: buffer.store };
    const message = (id: string): CountsMessage => ({
      id,
      counts: [
        ['st_a', 'store', '2026-11-25', { emailed: 1 }],
        ['st_a', 'events', '2026-11-25', { 'carts/create': 1 }],
      ],
    });

    const counted = [];
    for (const id of ['a', 'b', 'c', 'a', 'b']) counted.push(await applyCounts(deps, message(id)));
    expect(counted).toEqual([true, true, true, false, false]);
    await buffer.flush();

    // `store` keeps months, `events` does not: three items, each written once for three messages.
    expect(writes.sort()).toEqual(['st_a events 2026-11-25', 'st_a store 2026-11', 'st_a store 2026-11-25']);
    expect(await store.days('st_a', 'store', '2026-11-25', '2026-11-25')).toEqual([
      { day: '2026-11-25', counts: { emailed: 3 } },
    ]);
    expect(await store.months('st_a', 'store', '2026-11', '2026-11')).toEqual([
      { month: '2026-11', counts: { emailed: 3 } },
    ]);
    expect(await store.days('st_a', 'events', '2026-11-25', '2026-11-25')).toEqual([
      { day: '2026-11-25', counts: { 'carts/create': 3 } },
    ]);
  });

  it('refuses a body that is not a counts message as permanent, and leaves out only the additions that are not ones', () => {
    expect(() => parseCountsMessage('{')).toThrow(PermanentError);
    expect(() => parseCountsMessage(JSON.stringify({ counts: [] }))).toThrow(PermanentError);
    const good = ['st_b', 'store', '2026-11-25', { emailed: 1 }];
    const parsed = parseCountsMessage(
      JSON.stringify({
        id: 'x',
        counts: [
          ['st_a', 'store', '25/11/2026', { emailed: 1 }],
          ['st_a', 'store', '2026-11-25', { emailed: 'one' }],
          ['st_a', 'store', '2026-11-25', { emailed: null }],
          ['', 'store', '2026-11-25', { emailed: 1 }],
          good,
        ],
      }),
    );
    expect(parsed).toEqual({ id: 'x', counts: [good], invalid: 4 });
  });
});
