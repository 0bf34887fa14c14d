/**
 * Counts off the hot paths: a queue worker's batch sends what it counted (the stats' funnel counters, the
 * console's event and activity counts) as one message on the counters queue, and the counters worker sums the
 * messages of a few seconds of batches, from every worker, into one `ADD` per store, scope and period.
 *
 * Before, each batch wrote its own `ADD`s: one per store, scope and day, and per month, so a batch of ten flow emails
 * over seven stores cost some 28 writes, and a batch of ten events over nine stores nine. Those were most of a flow
 * email's writes and a quarter of an event's DynamoDB calls, and with many stores they barely sum within a batch.
 *
 * What stays: a count is added only on a transition that happens once (a run created, an email sent, an SES event
 * claimed, an event applied), as before. What the queue adds is exactly-once for the messages themselves: each carries
 * an id that the counters worker claims (one conditional put) before it adds the message's counts, so a message
 * delivered twice, or sent again after a send that failed but had reached the queue, counts once. A send that fails
 * keeps its message, id and all, for the next flush of the same warm worker. What it changes: a count shows in the
 * stats seconds later (the counters worker gathers messages for up to 2 s), not as its batch ends. The gap it keeps
 * (docs/attribution.md, "Limits of the counting"): a worker that dies holding counts it has not sent, or the counters worker dying
 * between a message's claim and its `ADD`s, loses them, as a crash between the once-only write and the `ADD` always
 * could.
 */
import * as v from 'valibot';
import { batchSums } from '#shared/domain/batch-sums.ts';
import { queueMessage } from '#shared/queue/message.ts';
import type { CounterBuffer } from './counter-buffer.ts';
import type { CountAddition, CountsMessage } from './model.ts';
import type { AttributionStore, CountsClaims, CountsQueue } from './ports.ts';

/**
 * Additions per message: a batch's counts fit one message as a rule (a flow batch of ten emails holds at most 40); a
 * larger flush (an SES batch of 100 over 100 stores holds ~300) is split, each part well under SQS's 256 KiB even
 * with a flow's step counters in every addition.
 */
export const MAX_COUNTS_PER_MESSAGE = 200;

/** One addition as the counters worker accepts it: ids, a UTC day, finite numbers. */
const CountAdditionSchema = v.tuple([
  v.pipe(v.string(), v.minLength(1)),
  v.pipe(v.string(), v.minLength(1)),
  v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}$/)),
  v.record(v.string(), v.pipe(v.number(), v.finite())),
]);

const readCountsEnvelope = queueMessage(
  v.object({ id: v.pipe(v.string(), v.minLength(1), v.maxLength(100)), counts: v.array(v.unknown()) }),
  'counts message',
);

/**
 * Reads a message off the counters queue: a body that is not one is permanent (no retry can fix it). An addition
 * that is not one (`invalid`: how many) is left out rather than the message: the others are other stores' counts.
 */
export const parseCountsMessage = (body: string): CountsMessage & { readonly invalid: number } => {
  const { id, counts } = readCountsEnvelope(body);
  const valid = counts.filter((addition): addition is CountAddition => v.is(CountAdditionSchema, addition));
  return { id, counts: valid, invalid: counts.length - valid.length };
};

/**
 * A counter buffer whose flush queues the batch's counts (`CountsMessage`s) instead of writing them: the hot paths'
 * `CounterBuffer`. Every other method of `target` goes straight through.
 */
export const queuedCounters = (
  target: AttributionStore,
  queue: CountsQueue,
  newId: () => string,
  onFlushFailed: (error: unknown, kept: number) => void = () => undefined,
): CounterBuffer => {
  // Summed per store, scope and day; taken whole at the flush, which sends them (`write` is never called).
  const sums = batchSums<readonly [storeId: string, scope: string, day: string]>(async () => undefined);
  /** Messages whose send failed, kept whole (their ids too) for the next flush. */
  let unsent: CountsMessage[] = [];
  return {
    store: {
      ...target,
      async add(storeId, scopes, day, deltas) {
        for (const scope of scopes) sums.add([storeId, scope, day], deltas);
      },
    },
    async flush() {
      const counts: CountAddition[] = sums
        .take()
        .map(({ key: [storeId, scope, day], sums: deltas }) => [storeId, scope, day, deltas]);
      const messages = [...unsent];
      unsent = [];
      for (let i = 0; i < counts.length; i += MAX_COUNTS_PER_MESSAGE) {
        messages.push({ id: newId(), counts: counts.slice(i, i + MAX_COUNTS_PER_MESSAGE) });
      }
      if (messages.length === 0) return 0;
      const results = await Promise.allSettled(messages.map((message) => queue.send(message)));
      let error: unknown;
      results.forEach((result, i) => {
        if (result.status === 'fulfilled') return;
        error ??= result.reason;
        unsent.push(messages[i] as CountsMessage);
      });
      const kept = unsent.reduce((n, m) => n + m.counts.length, 0);
      if (kept > 0) onFlushFailed(error, kept);
      return kept;
    },
  };
};

export interface CountsDeps {
  readonly claims: CountsClaims;
  /** Where the counts go: the counters worker's batch buffer (`counterBuffer`), which adds each day and its month. */
  readonly counters: Pick<AttributionStore, 'add'>;
}

/** Adds a message's counts unless it was claimed before: false for a message counted already. */
export const applyCounts = async (deps: CountsDeps, message: CountsMessage): Promise<boolean> => {
  if (!(await deps.claims.claim(message.id))) return false;
  for (const [storeId, scope, day, deltas] of message.counts) await deps.counters.add(storeId, [scope], day, deltas);
  return true;
};
