/** Wiring of the ingestion use cases to their AWS adapters (built once per warm function). */

import { coalescedGets, coalescedPuts } from '#shared/adapters/dynamodb/coalesced.ts';
import {
  dynamoCartRepository,
  dynamoCheckoutRepository,
  dynamoOrderRepository,
} from '#shared/adapters/dynamodb/commerce.repositories.ts';
import { batchedContactCounts } from '#shared/adapters/dynamodb/contact-counts.ts';
import { dynamoCustomerRepository } from '#shared/adapters/dynamodb/customer.repository.ts';
import { dynamoBackInStockRepository } from '#shared/adapters/dynamodb/engagement.repositories.ts';
import { dynamoCompactableHistory, dynamoEventHistory } from '#shared/adapters/dynamodb/event-history.repository.ts';
import { dynamoEventLog } from '#shared/adapters/dynamodb/event-log.repository.ts';
import { dynamoProductRepository } from '#shared/adapters/dynamodb/product.repository.ts';
import { dynamoRateLimiter, dynamoWindowCounters } from '#shared/adapters/dynamodb/rate-limiter.ts';
import { dynamoSenders } from '#shared/adapters/dynamodb/sending.repositories.ts';
import { dynamoStoreRepository } from '#shared/adapters/dynamodb/store.repository.ts';
import { dynamoTimerBuckets } from '#shared/adapters/dynamodb/timer-buckets.ts';
import { confirmLinks } from '#shared/adapters/email/confirm-links.ts';
import { schedulerTimers } from '#shared/adapters/scheduler/timers.ts';
import { sesMailer } from '#shared/adapters/ses/mailer.ts';
import { sqsCampaignQueue } from '#shared/adapters/sqs/campaign-queue.ts';
import { queuedFlowTriggers, sqsFlowQueue } from '#shared/adapters/sqs/flow-queue.ts';
import { sqsIngestQueue } from '#shared/adapters/sqs/ingest-queue.ts';
import { systemClock } from '#shared/clock.ts';
import { config } from '#shared/config.ts';
import type { CounterBuffer } from '#shared/domain/attribution/counter-buffer.ts';
import { campaignTimerMessage } from '#shared/domain/campaigns/campaign-message.ts';
import { type RequestConfirmationDeps, requestConfirmation } from '#shared/domain/contacts/sign-up-confirmation.ts';
import { newId } from '#shared/domain/ids.ts';
import type { AcceptDeps } from '#shared/domain/ingest/accept-event.ts';
import type { ApplyDeps } from '#shared/domain/ingest/apply-event.ts';
import { HistoryBuffer, type RecordHistoryDeps } from '#shared/domain/ingest/event-history.ts';
import type { EventStatusDeps } from '#shared/domain/ingest/event-status.ts';
import type { FailEventDeps } from '#shared/domain/ingest/fail-event.ts';
import { compactionSchedule } from '#shared/domain/ingest/history-compaction.ts';
import type { FireTimerDeps } from '#shared/domain/timers/fire-timer.ts';
import type { CampaignTimerPayload } from '#shared/domain/timers/model.ts';
import { webhookEmitter } from '#shared/domain/webhooks/emit.ts';
import { lazy } from '#shared/lazy.ts';
import { BUSINESS_METRICS, logger, metrics } from '#shared/observability.ts';
import { batchReads } from './batch-reads.ts';
import { batchCounters } from './counters.ts';
import { segmentRechecks } from './segments.ts';
import { emitDeps } from './webhooks.ts';

/** Events applied and failed, per store and day (the console's overview), queued at the end of each worker batch. */
const ingestCounters = /* @__PURE__ */ lazy(() => batchCounters('Event'));
export const eventCounters = (): CounterBuffer['store'] => ingestCounters().store;
export const flushEventCounters = async (): Promise<void> => {
  await ingestCounters().flush();
};

export const ingestDeps = /* @__PURE__ */ lazy(
  (): AcceptDeps => ({
    events: dynamoEventLog(),
    queue: sqsIngestQueue(),
    limiter: dynamoRateLimiter(systemClock),
    clock: systemClock,
    onLostRecord: (error, detail) =>
      logger.error('Event recorded but neither queued nor removed; a retry within 4 minutes queues it again', {
        ...detail,
        error,
      }),
  }),
);

/**
 * The ingest worker's batch handles its message groups side by side, each group's events in order, and each event
 * reads its entity first: the reads asked for in one turn of the event loop go out as one `BatchGetItem`, the plain
 * puts (page views, back-in-stock subscriptions, the batch's history packs) as one `BatchWriteItem` (`coalesced.ts`).
 * Every conditional write (the entities' revisioned saves, triggers, webhook events) keeps its own call.
 */
const together = /* @__PURE__ */ lazy(() => ({ reads: coalescedGets(), puts: coalescedPuts() }));

/** The store settings the worker's batch read (a paid order's influence window), once per store and batch. */
const batchStores = /* @__PURE__ */ lazy(() => {
  const stores = dynamoStoreRepository();
  const reads = batchReads<Awaited<ReturnType<ApplyDeps['stores']['get']>>>();
  return {
    repository: { get: (storeId: string) => reads.read(storeId, () => stores.get(storeId)) },
    forget: () => reads.forget(),
  };
});

/** The end of an ingest-worker batch: the store settings it read are forgotten (a change applies from the next). */
export const forgetBatchStores = (): void => batchStores().forget();

/** The export's contact counters the batch's new contacts add to, written once per bucket when it ends. */
const contactCounts = /* @__PURE__ */ lazy(() => batchedContactCounts());
export const flushContactCounts = (): Promise<void> => contactCounts().flush();

/** A public sign-up's confirmation email: the store's verified domain, its name, the signed link, the bounds. */
const confirmationDeps = /* @__PURE__ */ lazy(
  (): RequestConfirmationDeps => ({
    mailer: sesMailer(),
    senders: dynamoSenders(),
    stores: dynamoStoreRepository(),
    links: confirmLinks(),
    counters: dynamoWindowCounters(),
    clock: systemClock,
  }),
);

export const applyDeps = /* @__PURE__ */ lazy(
  (): ApplyDeps => ({
    customers: dynamoCustomerRepository(together().reads, contactCounts().adjust),
    // A paid order's recovered and influenced counts go with the batch's other counts (the counters queue).
    attribution: ingestCounters().store,
    stores: batchStores().repository,
    products: dynamoProductRepository(together().reads),
    orders: dynamoOrderRepository(together().reads),
    carts: dynamoCartRepository(together().reads),
    checkouts: dynamoCheckoutRepository(together().reads),
    backInStock: dynamoBackInStockRepository(together().puts),
    timers: schedulerTimers(),
    triggers: queuedFlowTriggers(),
    webhooks: webhookEmitter(emitDeps()),
    clock: systemClock,
    newContactId: () => newId('ct'),
    confirmations: { request: (storeId, email) => requestConfirmation(confirmationDeps(), { storeId, email }) },
    checkoutRecoveryWaitMs: config().checkoutRecoveryWaitMinutes * 60_000,
  }),
);

/** The applied events of the worker's batch in hand, written packed when the batch ends (docs/backtest.md). */
export const historyBuffer = /* @__PURE__ */ new HistoryBuffer();

/**
 * The event history for backtests (docs/backtest.md): one item per store and day per worker batch, the batch's items
 * put together (one `BatchWriteItem` for up to 25).
 */
export const historyDeps = /* @__PURE__ */ lazy(
  (): RecordHistoryDeps => ({
    history: dynamoEventHistory(systemClock, together().puts),
    keepDays: config().eventHistoryDays,
    // Each store's day written gets its compaction timer (once per instance and day).
    written: compactionSchedule({ timers: schedulerTimers(), clock: systemClock }),
  }),
);

export const eventStatusDeps = /* @__PURE__ */ lazy((): EventStatusDeps => ({ events: dynamoEventLog() }));

export const failEventDeps = /* @__PURE__ */ lazy(
  (): FailEventDeps => ({
    events: dynamoEventLog(),
    clock: systemClock,
    count: (event) => metrics.count(BUSINESS_METRICS.eventsFailed, 1, { interface: event.interface }),
  }),
);

/**
 * Where the timer worker hands a due campaign, or a campaign's send batch held for quiet hours (the campaigns queue):
 * only the queue's adapter, so the event path's bundles do not carry the campaigns area.
 */
const campaignStarts = /* @__PURE__ */ lazy(() => {
  const queue = sqsCampaignQueue();
  return {
    start: (timer: CampaignTimerPayload) => queue.send(campaignTimerMessage(timer)),
  };
});

export const fireTimerDeps = /* @__PURE__ */ lazy(
  (): FireTimerDeps => ({
    carts: dynamoCartRepository(),
    checkouts: dynamoCheckoutRepository(),
    customers: dynamoCustomerRepository(),
    triggers: queuedFlowTriggers(),
    flowQueue: sqsFlowQueue(),
    buckets: dynamoTimerBuckets(),
    segmentRechecks: segmentRechecks(),
    campaignStarts: campaignStarts(),
    historyCompaction: {
      history: dynamoCompactableHistory(systemClock),
      keepDays: config().eventHistoryDays,
      clock: systemClock,
    },
    clock: systemClock,
  }),
);
