/** Wiring of the senders, bulk sending and send worker use cases to their adapters (built once per warm function). */

import { sqs } from '#shared/adapters/aws-clients.ts';
import { dynamoSentMessages, dynamoSuppressions } from '#shared/adapters/dynamodb/email.repositories.ts';
import { dynamoSendPacer } from '#shared/adapters/dynamodb/send-pacer.ts';
import { dynamoSendBatches, dynamoSenders } from '#shared/adapters/dynamodb/sending.repositories.ts';
import { unsubscribeLinks } from '#shared/adapters/email/unsubscribe-links.ts';
import { sesIdentities } from '#shared/adapters/ses/identities.ts';
import { sesMailer } from '#shared/adapters/ses/mailer.ts';
import { batchingSender } from '#shared/adapters/sqs/batching-sender.ts';
import { config, required } from '#shared/config.ts';
import type { AcceptBulkDeps } from '#shared/domain/email/accept-bulk.ts';
import type { SendQueue } from '#shared/domain/email/ports.ts';
import type { SendWorkerDeps } from '#shared/domain/email/send-chunk.ts';
import type { SenderDeps } from '#shared/domain/email/senders.ts';

const clock = { now: () => Date.now() };

/**
 * The `sends` queue: `{v: 1, type: 'batch' | 'chunk', storeId, batchId, chunk?}` messages, sent together (10 per SQS
 * call) by the shared batching sender.
 */
export const sqsSendQueue = (): SendQueue => {
  const send = batchingSender(sqs, () => required('sendQueueUrl'));
  const sendAll = async (bodies: readonly Record<string, unknown>[], delaySeconds = 0) => {
    const delay = Math.max(0, Math.min(900, Math.round(delaySeconds)));
    await Promise.all(
      bodies.map((body) => send({ MessageBody: JSON.stringify(body), ...(delay > 0 ? { DelaySeconds: delay } : {}) })),
    );
  };
  return {
    startBatch: (storeId, batchId) => sendAll([{ v: 1, type: 'batch', storeId, batchId }]),
    enqueueChunks: (storeId, batchId, chunks, delaySeconds) =>
      sendAll(
        chunks.map((chunk) => ({ v: 1, type: 'chunk', storeId, batchId, chunk })),
        delaySeconds,
      ),
  };
};

let senders: SenderDeps | undefined;
let accept: AcceptBulkDeps | undefined;
let worker: SendWorkerDeps | undefined;

export const senderDeps = (): SenderDeps => {
  senders ??= { senders: dynamoSenders(), identities: sesIdentities(), clock };
  return senders;
};

export const acceptBulkDeps = (): AcceptBulkDeps => {
  accept ??= {
    senders: senderDeps(),
    suppressions: dynamoSuppressions(),
    batches: dynamoSendBatches(clock),
    queue: sqsSendQueue(),
    clock,
  };
  return accept;
};

export const batchReadDeps = () => ({ batches: dynamoSendBatches(clock) });

/** Slots are reserved at most this far ahead: a wait of this length fits well within the worker's timeout. */
const PACING_HORIZON_SECONDS = 20;
/** Longer than one attempt of the worker (60 s timeout), shorter than the queue's 180 s visibility timeout. */
const CHUNK_LEASE_MS = 90_000;

export const sendWorkerDeps = (): SendWorkerDeps => {
  worker ??= {
    batches: dynamoSendBatches(clock),
    queue: sqsSendQueue(),
    mailer: sesMailer(),
    sentMessages: dynamoSentMessages(),
    pacer: dynamoSendPacer(clock, { horizonSeconds: PACING_HORIZON_SECONDS }),
    unsubscribeUrl: unsubscribeLinks().urlFor,
    clock,
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    sendRatePerSecond: config().sesSendRatePerSecond,
    leaseMs: CHUNK_LEASE_MS,
  };
  return worker;
};
