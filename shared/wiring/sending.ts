/** Wiring of the senders, bulk sending and send worker use cases to their adapters (built once per warm function). */

import { dynamoSentMessages, dynamoSuppressions } from '#shared/adapters/dynamodb/email.repositories.ts';
import { dynamoDailySends, dynamoSendPacer } from '#shared/adapters/dynamodb/send-pacer.ts';
import { dynamoSendBatches, dynamoSenders } from '#shared/adapters/dynamodb/sending.repositories.ts';
import { unsubscribeLinks } from '#shared/adapters/email/unsubscribe-links.ts';
import { sesIdentities } from '#shared/adapters/ses/identities.ts';
import { sesMailer } from '#shared/adapters/ses/mailer.ts';
import { sqsSendQueue } from '#shared/adapters/sqs/send-queue.ts';
import { config } from '#shared/config.ts';
import type { AcceptBulkDeps } from '#shared/domain/email/accept-bulk.ts';
import type { SendWorkerDeps } from '#shared/domain/email/send-chunk.ts';
import type { SenderDeps } from '#shared/domain/email/senders.ts';
import { lazy } from '#shared/lazy.ts';
import { systemClock } from './clock.ts';

export const senderDeps = lazy(
  (): SenderDeps => ({ senders: dynamoSenders(), identities: sesIdentities(), clock: systemClock }),
);

export const acceptBulkDeps = lazy(
  (): AcceptBulkDeps => ({
    senders: senderDeps(),
    dailySends: dynamoDailySends(),
    dailySendCap: config().storeDailySendCap,
    suppressions: dynamoSuppressions(),
    batches: dynamoSendBatches(systemClock),
    queue: sqsSendQueue(),
    clock: systemClock,
  }),
);

export const batchReadDeps = () => ({ batches: dynamoSendBatches(systemClock) });

/** Slots are reserved at most this far ahead: a wait of this length fits well within the worker's timeout. */
export const PACING_HORIZON_SECONDS = 20;
/** Longer than one attempt of the worker (60 s timeout), shorter than the queue's 180 s visibility timeout. */
const CHUNK_LEASE_MS = 90_000;

export const sendWorkerDeps = lazy(
  (): SendWorkerDeps => ({
    batches: dynamoSendBatches(systemClock),
    queue: sqsSendQueue(),
    mailer: sesMailer(),
    sentMessages: dynamoSentMessages(),
    pacer: dynamoSendPacer(systemClock, { horizonSeconds: PACING_HORIZON_SECONDS }),
    unsubscribeUrl: unsubscribeLinks().urlFor,
    clock: systemClock,
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    sendRatePerSecond: config().sesSendRatePerSecond,
    leaseMs: CHUNK_LEASE_MS,
  }),
);
