/**
 * The queue wrapper without the runtime, fed SQS events: partial batch responses, permanent errors acknowledged, the
 * last attempt known to the handler, a FIFO failure holding back the rest of its own group only, and a permanent
 * failure (a DynamoDB refusal no retry changes; on a FIFO queue an error retrying cannot cure, such as a `TypeError`)
 * handed to its owner and acknowledged, while throttling and network errors are retried.
 */
import * as v from 'valibot';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { PermanentError, validationError } from '#shared/errors.ts';
import { logger } from '#shared/observability.ts';
import { fifoQueueWorker, queueWorker } from '#shared/queue/batch.ts';
import { queueMessage } from '#shared/queue/message.ts';
import { lambdaContext, sqsEvent } from '#test/support/events.ts';

// The failures these tests provoke are logged by design; the lane's output keeps to the tests' own results.
beforeEach(() => {
  vi.spyOn(logger, 'error').mockImplementation(() => undefined);
  vi.spyOn(logger, 'warn').mockImplementation(() => undefined);
});

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

  it('retries a TypeError on a standard queue: it holds back no group, and the DLQ keeps it for a redrive', async () => {
    const permanent: number[] = [];
    const worker = queueWorker({
      queue: { maxReceiveCount: 5 },
      parse,
      handle: async () => {
        throw new TypeError('x.split is not a function');
      },
      onPermanent: async ({ n }) => {
        permanent.push(n);
      },
    });
    const answer = await worker(sqsEvent([{ n: 1 }]), lambdaContext());
    expect(answer.batchItemFailures).toEqual([{ itemIdentifier: 'm1' }]);
    expect(permanent).toEqual([]);
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

  it('runs afterBatch once every record is handled, and a failing one leaves the records’ outcomes as they were', async () => {
    const order: string[] = [];
    const worker = (afterBatch: () => Promise<void>) =>
      queueWorker({
        queue: { maxReceiveCount: 5 },
        parse,
        handle: async ({ n }) => {
          await new Promise((resolve) => setTimeout(resolve, 5 * n));
          if (n === 2) throw new Error('transient');
          order.push(`record ${n}`);
        },
        afterBatch,
      });
    const answer = await worker(async () => {
      order.push('after');
    })(sqsEvent([{ n: 3 }, { n: 1 }, { n: 2 }]), lambdaContext());
    expect(order).toEqual(['record 1', 'record 3', 'after']);
    expect(answer.batchItemFailures).toEqual([{ itemIdentifier: 'm3' }]);

    const failing = await worker(async () => {
      throw new Error('flush failed');
    })(sqsEvent([{ n: 1 }, { n: 2 }]), lambdaContext());
    expect(failing.batchItemFailures).toEqual([{ itemIdentifier: 'm2' }]);
  });
});

describe('fifoQueueWorker', () => {
  it('fails every later record of the group after a failure, keeping the group in order', async () => {
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

  it("holds back only the failing record's group: another store's records in the batch are applied", async () => {
    const seen: number[] = [];
    const worker = fifoQueueWorker({
      queue: { maxReceiveCount: 5 },
      parse,
      handle: async ({ n }) => {
        if (n === 1) throw new Error('transient');
        seen.push(n);
      },
    });
    const event = sqsEvent([{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }], {
      fifo: true,
      groupIds: ['attacker', 'victim', 'attacker', 'victim'],
    });
    const answer = await worker(event, lambdaContext());
    expect(seen).toEqual([2, 4]);
    expect(answer.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(['m1', 'm3']);
  });

  it("handles the groups side by side: a slow group's record does not wait for another group's", async () => {
    const order: string[] = [];
    const worker = fifoQueueWorker({
      queue: { maxReceiveCount: 5 },
      parse,
      handle: async ({ n }) => {
        // Each of the attacker's records takes 30 ms; the victim's take none.
        if (n % 2 === 1) await new Promise((resolve) => setTimeout(resolve, 30));
        order.push(`${n % 2 === 1 ? 'attacker' : 'victim'} ${n}`);
      },
    });
    const event = sqsEvent([{ n: 1 }, { n: 3 }, { n: 2 }, { n: 4 }], {
      fifo: true,
      groupIds: ['attacker', 'attacker', 'victim', 'victim'],
    });
    const answer = await worker(event, lambdaContext());
    expect(answer.batchItemFailures).toEqual([]);
    // The victim's records are done before the attacker's first; each group in its own order.
    expect(order).toEqual(['victim 2', 'victim 4', 'attacker 1', 'attacker 3']);
  });

  it('acknowledges an item DynamoDB refuses as too large, after handing it to onPermanent; its group goes on', async () => {
    const seen: number[] = [];
    const permanent: { n: number; error: string }[] = [];
    const worker = fifoQueueWorker({
      queue: { maxReceiveCount: 5 },
      parse,
      handle: async ({ n }) => {
        if (n === 1) {
          throw Object.assign(new Error('Item size has exceeded the maximum allowed size'), {
            name: 'ValidationException',
            $metadata: { httpStatusCode: 400 },
          });
        }
        seen.push(n);
      },
      onPermanent: async ({ n }, error) => {
        permanent.push({ n, error: (error as Error).message });
      },
    });
    const answer = await worker(sqsEvent([{ n: 1 }, { n: 2 }], { fifo: true }), lambdaContext());
    expect(answer.batchItemFailures).toEqual([]);
    expect(seen).toEqual([2]);
    expect(permanent).toEqual([{ n: 1, error: 'Item size has exceeded the maximum allowed size' }]);
  });

  /** A FIFO worker whose first record fails with `error`, the second (same group) succeeding. */
  const failingFirst = (error: unknown) => {
    const seen: number[] = [];
    const permanent: { n: number; error: unknown }[] = [];
    const worker = fifoQueueWorker({
      queue: { maxReceiveCount: 5 },
      parse,
      handle: async ({ n }) => {
        if (n === 1) throw error;
        seen.push(n);
      },
      onPermanent: async ({ n }, e) => {
        permanent.push({ n, error: e });
      },
    });
    return { seen, permanent, run: () => worker(sqsEvent([{ n: 1 }, { n: 2 }], { fifo: true }), lambdaContext()) };
  };

  it.each([
    ['a TypeError', new TypeError("Cannot read properties of undefined (reading 'split')")],
    [
      'a TypeError from a Node API',
      Object.assign(new TypeError('The "string" argument must be of type string'), { code: 'ERR_INVALID_ARG_TYPE' }),
    ],
    ['a RangeError', new RangeError('Invalid time value')],
    ['a SyntaxError', new SyntaxError('Unexpected token } in JSON at position 1')],
    ['a validation of stored data', validationError('data.tags must be an array of strings')],
  ])('hands %s (retrying cannot cure it) to onPermanent and acknowledges it; its group goes on', async (_, error) => {
    const { seen, permanent, run } = failingFirst(error);
    const answer = await run();
    expect(answer.batchItemFailures).toEqual([]);
    expect(seen).toEqual([2]);
    expect(permanent).toEqual([{ n: 1, error }]);
  });

  it.each([
    [
      'a throttling error',
      Object.assign(new Error('Rate exceeded'), {
        name: 'ThrottlingException',
        $retryable: { throttling: true },
        $metadata: { httpStatusCode: 400 },
      }),
    ],
    [
      'a network error (fetch failed, its cause the socket error)',
      new TypeError('fetch failed', { cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }) }),
    ],
    [
      'a TypeError raised inside the AWS SDK',
      Object.assign(new TypeError('Cannot read body'), { $metadata: { httpStatusCode: 503 } }),
    ],
    ['a plain Error', new Error('socket hang up')],
  ])('retries %s: the record and the rest of its group go back to the queue', async (_, error) => {
    const { seen, permanent, run } = failingFirst(error);
    const answer = await run();
    expect(answer.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(['m1', 'm2']);
    expect(seen).toEqual([]);
    expect(permanent).toEqual([]);
  });
});
