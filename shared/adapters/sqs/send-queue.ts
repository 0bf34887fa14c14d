import { sqs } from '#shared/adapters/aws-clients.ts';
import { required } from '#shared/config.ts';
import type { SendQueue } from '#shared/domain/email/ports.ts';
import { batchingSender } from './batching-sender.ts';

/**
 * The `sends` queue: `{v: 1, type: 'batch' | 'chunk', storeId, batchId, chunk?}` messages, sent together (10 per SQS
 * call) by the shared batching sender.
 */
export const sqsSendQueue = (): SendQueue => {
  const send = batchingSender(sqs, () => required('sendQueueUrl'));
  const sendAll = async (storeId: string, bodies: readonly Record<string, unknown>[], delaySeconds = 0) => {
    const delay = Math.max(0, Math.min(900, Math.round(delaySeconds)));
    await Promise.all(
      bodies.map((body) =>
        send({
          MessageBody: JSON.stringify(body),
          MessageGroupId: storeId,
          ...(delay > 0 ? { DelaySeconds: delay } : {}),
        }),
      ),
    );
  };
  return {
    startBatch: (storeId, batchId) => sendAll(storeId, [{ v: 1, type: 'batch', storeId, batchId }]),
    enqueueChunks: (storeId, batchId, chunks, delaySeconds) =>
      sendAll(
        storeId,
        chunks.map((chunk) => ({ v: 1, type: 'chunk', storeId, batchId, chunk })),
        delaySeconds,
      ),
  };
};
