/**
 * The one queue wrapper: Powertools batch processing with partial batch responses, so only failed records return to the
 * queue. For FIFO queues a failure also fails the later records of its own message group, which keeps that group's
 * order; other groups (other stores, other entities) go on, side by side. A
 * permanent error (a message that can never succeed: `PermanentError`, or a dependency's refusal no retry changes, such
 * as an item over DynamoDB's 400 KB; on a FIFO queue also an error retrying cannot cure, `isUncurableError`: a
 * `TypeError` on the message's data) is handed to `onPermanent`, logged and acknowledged, so it never holds its group;
 * anything else (throttling, a network error, a 5xx) is thrown so the queue retries and, after `maxReceiveCount`, moves
 * the message to the DLQ.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { isPermanentDependencyError, isUncurableError, PermanentError, RetryLater } from '#shared/errors.ts';
import { logger } from '#shared/observability.ts';

/** One delivery of a message, as the queue handed it over. */
export interface Delivery {
  readonly record: SQSRecord;
  /** The invocation's Lambda context (e.g. to see how much time is left). */
  readonly context: Context;
  /** Which receive of the message this is: 1 on the first. */
  readonly attempt: number;
  /** The queue will not deliver the message again: a failure now sends it to the DLQ. */
  readonly lastAttempt: boolean;
}

export interface QueueWorkerOptions<T> {
  /** The consumed queue's redrive (its catalog entry, e.g. `QUEUES.flows`): receives before the DLQ. */
  readonly queue: { readonly maxReceiveCount: number };
  /** Turns the raw body into a message; throw `PermanentError` for a malformed one (see `queueMessage`). */
  readonly parse: (body: string) => T;
  readonly handle: (message: T, delivery: Delivery) => Promise<void>;
  /**
   * Called with a parsed message whose handling failed permanently, before it is acknowledged (e.g. to record the
   * failure where its owner can see it). If this throws, the message is retried like any failure.
   */
  readonly onPermanent?: (message: T, error: unknown, delivery: Delivery) => Promise<void>;
  /**
   * Runs once the batch's records are handled, before the queue is answered: to write what the records kept in memory
   * (e.g. counters, `shared/domain/attribution/counter-buffer.ts`). It must not throw for a failure that retrying the
   * records would not repair; if it throws anyway, the error is logged and the batch is answered as handled.
   */
  readonly afterBatch?: () => Promise<void>;
}

/** A failure no retry changes, on any queue: a `PermanentError`, or a dependency's refusal. */
const refused = (error: unknown): boolean => error instanceof PermanentError || isPermanentDependencyError(error);

/**
 * On a FIFO queue, also an error that retrying cannot cure (`isUncurableError`): each retry there holds back every
 * later message of its group, one entity's (a customer's next update waited 15 minutes behind one such event), so it
 * is recorded (`onPermanent`) and acknowledged like any permanent failure. On a standard queue a retry holds back only
 * the message itself, and after `maxReceiveCount` the DLQ keeps it (and alarms) for a redrive once the code is fixed.
 */
const refusedInGroup = (error: unknown): boolean => refused(error) || isUncurableError(error);

const recordHandlerOf =
  <T>({ queue, parse, handle, onPermanent }: QueueWorkerOptions<T>, permanent: (error: unknown) => boolean) =>
  async (record: SQSRecord, context: Context): Promise<void> => {
    let message: { value: T } | undefined;
    const attempt = Number(record.attributes.ApproximateReceiveCount) || 1;
    const delivery = { record, context, attempt, lastAttempt: attempt >= queue.maxReceiveCount };
    try {
      message = { value: parse(record.body) };
      await handle(message.value, delivery);
    } catch (error) {
      if (permanent(error)) {
        if (message && onPermanent) await onPermanent(message.value, error, delivery);
        logger.error('Message dropped: permanent error', { messageId: record.messageId, error });
        return;
      }
      // The handler already scheduled its retry (and logged why): fail the record quietly.
      if (error instanceof RetryLater) throw error;
      logger.warn('Message failed; the queue will retry it', {
        messageId: record.messageId,
        receiveCount: record.attributes.ApproximateReceiveCount,
        error,
      });
      throw error;
    }
  };

/**
 * A batch whose records all failed is answered like any other (every record listed as failed) instead of throwing:
 * the queue retries the same records either way, and the records' own errors were already logged.
 */
const OPTIONS = { throwOnFullBatchFailure: false } as const;

/** Answers the batch, after `afterBatch` (whose failure is logged: the records' own outcomes stand). */
const finishBatch = async (response: SQSBatchResponse, afterBatch: (() => Promise<void>) | undefined) => {
  if (afterBatch) {
    try {
      await afterBatch();
    } catch (error) {
      logger.error('After-batch step failed', { error });
    }
  }
  return response;
};

/**
 * A FIFO queue's consumer: each message group's records in order, the groups side by side (order is kept within a
 * group only, as across Lambda invocations; one store's slow or failing entity holds no other group back). A failure
 * fails the rest of its group in the batch (they return to the queue behind it, in order) and no other group; an error
 * retrying cannot cure is permanent here (`refusedInGroup`), so it never holds the group. Powertools' FIFO processor (`skipGroupOnError`) has these outcomes but handles the whole batch one record at a time.
 */
export const fifoQueueWorker = <T>(options: QueueWorkerOptions<T>) => {
  const recordHandler = recordHandlerOf(options, refusedInGroup);
  return async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
    logger.addContext(context);
    const groups = new Map<string, SQSRecord[]>();
    for (const record of event.Records) {
      const group = record.attributes.MessageGroupId ?? '';
      groups.set(group, [...(groups.get(group) ?? []), record]);
    }
    const failed = new Set<string>();
    await Promise.all(
      [...groups.values()].map(async (records) => {
        for (const [i, record] of records.entries()) {
          try {
            await recordHandler(record, context);
          } catch {
            for (const later of records.slice(i)) failed.add(later.messageId);
            return;
          }
        }
      }),
    );
    const batchItemFailures = event.Records.filter((r) => failed.has(r.messageId)).map((r) => ({
      itemIdentifier: r.messageId,
    }));
    return finishBatch({ batchItemFailures }, options.afterBatch);
  };
};

/** A standard queue's consumer: records processed in parallel, each failure reported on its own. */
export const queueWorker = <T>(options: QueueWorkerOptions<T>) => {
  const recordHandler = recordHandlerOf(options, refused);
  return async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
    logger.addContext(context);
    const response = await processPartialResponse(event, recordHandler, new BatchProcessor(EventType.SQS), {
      context,
      ...OPTIONS,
    });
    return finishBatch(response, options.afterBatch);
  };
};
