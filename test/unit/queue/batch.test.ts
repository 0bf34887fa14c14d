/**
 * The queue wrapper without the runtime, fed SQS events: partial batch responses, permanent errors acknowledged, the
 * last attempt known to the handler, and a FIFO failure holding back the rest of its batch.
 */
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { PermanentError } from '#shared/errors.ts';
import { fifoQueueWorker, queueWorker } from '#shared/queue/batch.ts';
import { queueMessage } from '#shared/queue/message.ts';
import { lambdaContext, sqsEvent } from '#test/support/events.ts';

const parse = queueMessage(v.object({ n: v.number() }), 'test message');

describe('queueWorker', () => {
  it('reports only the records that failed, and acknowledges a malformed or permanently failing one', async () => {
    const seen: number[] = [];
    const worker = queueWorker({
      queue: { maxReceiveCount: 5 },
      parse,
      handle: async ({ n }) => {
        if (n === 2) throw new Error('transient');
        if (n === 3) throw new PermanentError('never');
        seen.push(n);
      },
    });
    const answer = await worker(sqsEvent([{ n: 1 }, { n: 2 }, { n: 3 }, 'not json', { n: 5 }]), lambdaContext());
    expect(answer.batchItemFailures).toEqual([{ itemIdentifier: 'm2' }]);
    expect(seen.sort()).toEqual([1, 5]);
  });

  it('tells the handler which receive it is and whether it is the last before the DLQ', async () => {
    const deliveries: { attempt: number; lastAttempt: boolean }[] = [];
    const worker = queueWorker({
      queue: { maxReceiveCount: 3 },
      parse,
      handle: async (_message, { attempt, lastAttempt }) => {
        deliveries.push({ attempt, lastAttempt });
      },
    });
    await worker(sqsEvent([{ n: 1 }], { receiveCount: 2 }), lambdaContext());
    await worker(sqsEvent([{ n: 1 }], { receiveCount: 3 }), lambdaContext());
    expect(deliveries).toEqual([
      { attempt: 2, lastAttempt: false },
      { attempt: 3, lastAttempt: true },
    ]);
  });
});

describe('fifoQueueWorker', () => {
  it('fails every later record of the batch after a failure, keeping the group in order', async () => {
    const seen: number[] = [];
    const worker = fifoQueueWorker({
      queue: { maxReceiveCount: 5 },
      parse,
      handle: async ({ n }) => {
        if (n === 2) throw new Error('transient');
        seen.push(n);
      },
    });
    const answer = await worker(sqsEvent([{ n: 1 }, { n: 2 }, { n: 3 }], { fifo: true }), lambdaContext());
    expect(seen).toEqual([1]);
    expect(answer.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(['m2', 'm3']);
  });
});
