/** Wiring of the flow engine and the explain views to their AWS adapters (built once per warm function). */

import { coalescedRunBudget, dynamoRunBudget, leasedRunBudget } from '#shared/adapters/dynamodb/budgets.ts';
import { coalescedGets, coalescedPuts } from '#shared/adapters/dynamodb/coalesced.ts';
import { dynamoCartRepository, dynamoCheckoutRepository } from '#shared/adapters/dynamodb/commerce.repositories.ts';
import { dynamoContactsByEmail } from '#shared/adapters/dynamodb/contacts-by-email.ts';
import { dynamoCustomerRepository } from '#shared/adapters/dynamodb/customer.repository.ts';
import { dynamoSentMessages, dynamoSuppressions } from '#shared/adapters/dynamodb/email.repositories.ts';
import { dynamoFlows } from '#shared/adapters/dynamodb/flow.repositories.ts';
import {
  dynamoContactActivity,
  dynamoFlowEntries,
  dynamoFlowEvaluations,
  dynamoFlowRuns,
  dynamoRecoveryMarks,
  dynamoTriggerLog,
} from '#shared/adapters/dynamodb/flow-runs.repositories.ts';
import { dynamoRecentSends } from '#shared/adapters/dynamodb/recent-sends.ts';
import { dynamoDailySends, dynamoSendPacer } from '#shared/adapters/dynamodb/send-pacer.ts';
import { dynamoSenders } from '#shared/adapters/dynamodb/sending.repositories.ts';
import { cachedPerStore } from '#shared/adapters/dynamodb/store.repository.ts';
import { dynamoTimerBuckets } from '#shared/adapters/dynamodb/timer-buckets.ts';
import { unsubscribeLinks } from '#shared/adapters/email/unsubscribe-links.ts';
import { schedulerTimers } from '#shared/adapters/scheduler/timers.ts';
import { sesMailer } from '#shared/adapters/ses/mailer.ts';
import { sqsFlowQueue } from '#shared/adapters/sqs/flow-queue.ts';
import { systemClock } from '#shared/clock.ts';
import { config } from '#shared/config.ts';
import { requireVerifiedSender } from '#shared/domain/email/senders.ts';
import { budgetAdmission } from '#shared/domain/flows/admission.ts';
import type { EngineDeps } from '#shared/domain/flows/engine.ts';
import type { ExplainDeps } from '#shared/domain/flows/explain.ts';
import type { Flow } from '#shared/domain/flows/flow.ts';
import type { FlowQueue, FlowRepository, TriggerLog } from '#shared/domain/flows/ports.ts';
import { wheelTimers } from '#shared/domain/timers/wheel.ts';
import { lazy } from '#shared/lazy.ts';
import { LIMITS } from '#shared/limits.ts';
import { BUSINESS_METRICS, metrics } from '#shared/observability.ts';
import { batchReads } from './batch-reads.ts';
import { batchCounters } from './counters.ts';
import { PACING_HORIZON_SECONDS, senderDeps, storeDailySendCap, storeStanding } from './sending.ts';

/**
 * The funnel counters a flow-worker batch adds (entered, emailed), written once at the batch's end (`afterFlowBatch`,
 * the worker's `afterBatch`): one `ADD` per store, scope and day instead of one per run.
 */
const flowCounters = /* @__PURE__ */ lazy(() => batchCounters('Flow'));

/**
 * The store's flows as the worker's current batch first read them (a batch of one store's triggers read the
 * flows list once per trigger). Forgotten at the batch's end (`afterFlowBatch`): a flow saved meanwhile applies from
 * the next batch, seconds later, as it would to a batch that had started a moment later.
 */
const batchFlows = /* @__PURE__ */ lazy(() => {
  const repository = dynamoFlows();
  const lists = batchReads<Flow[]>();
  const flows = batchReads<Flow | undefined>();
  const memoized: FlowRepository = {
    ...repository,
    list: (storeId) => lists.read(storeId, () => repository.list(storeId)),
    get: (storeId, flowId) => flows.read(`${storeId}#${flowId}`, () => repository.get(storeId, flowId)),
  };
  return {
    repository: memoized,
    forget: () => {
      lists.forget();
      flows.forget();
    },
  };
});

/** The end of a flow-worker batch: its counters written, its flows forgotten. */
export const afterFlowBatch = async (): Promise<void> => {
  batchFlows().forget();
  await flowCounters().flush();
};

/**
 * The worker's single-item reads and unconditional puts, gathered per turn of the event loop: a batch's
 * records take the same steps side by side, so their trigger, run, contact, suppression and sender reads go out as one
 * `BatchGetItem`, their activity, evaluation, sent-message records and new runs (a run whose entry guard the worker
 * took afresh has no other writer: `FlowRunRepository.create`'s `guarded`) as one `BatchWriteItem`. Every conditional
 * write (entry guard, a run's later states, run budget, counters, pacer) keeps its own call.
 */
const together = /* @__PURE__ */ lazy(() => ({ reads: coalescedGets(), puts: coalescedPuts() }));

/** The senders check's deps, its sender reads gathered with the batch's others. */
const flowSenderDeps = /* @__PURE__ */ lazy(() => ({ ...senderDeps(), senders: dynamoSenders(together().reads) }));

export const flowEngineDeps = /* @__PURE__ */ lazy((): EngineDeps & { triggers: TriggerLog; flowQueue: FlowQueue } => ({
  // One store's run starts are bounded (an operator setting); a trigger over it waits for its reserved time. A batch's
  // triggers of one store reserve together, from slots this worker leased ahead: a few conditional writes per store
  // and second, not one per batch.
  admission: budgetAdmission(
    coalescedRunBudget(leasedRunBudget(dynamoRunBudget())),
    systemClock,
    config().storeFlowRunsPerSecond,
  ),
  flowQueue: sqsFlowQueue(),
  flows: batchFlows().repository,
  triggers: dynamoTriggerLog(together().reads),
  runs: dynamoFlowRuns(together().reads, together().puts),
  evaluations: dynamoFlowEvaluations(together().puts),
  entries: dynamoFlowEntries(),
  activity: dynamoContactActivity(together().puts),
  marks: dynamoRecoveryMarks(),
  customers: dynamoCustomerRepository(together().reads),
  contacts: dynamoContactsByEmail(),
  carts: dynamoCartRepository(),
  checkouts: dynamoCheckoutRepository(),
  // Store names change rarely: emails of one store in a warm worker read the store once a minute.
  stores: { get: cachedPerStore(systemClock, 60_000, (store) => store) },
  suppressions: dynamoSuppressions(together().reads),
  mailer: sesMailer(),
  sent: dynamoSentMessages(together().puts),
  attribution: flowCounters().store,
  // Flow waits through the timer wheel: one Scheduler schedule per store and due minute, not per waiting run.
  timers: wheelTimers({
    buckets: dynamoTimerBuckets(),
    schedules: schedulerTimers(),
    clock: systemClock,
    waitingRunsCap: LIMITS.waitingRunsPerStore,
  }),
  unsubscribe: unsubscribeLinks(),
  senders: {
    requireVerified: (storeId, fromEmail) => requireVerifiedSender(flowSenderDeps(), storeId, fromEmail),
  },
  // One pacer for bulk and flow mail: the account's SES rate, transactional first, a fair share per store. A batch's
  // emails reserve their slots together (one conditional write per turn for the account), each store's from slots of
  // the second this worker leased (a write or two per store and second).
  pacer: dynamoSendPacer(systemClock, {
    horizonSeconds: PACING_HORIZON_SECONDS,
    gatherPerTurn: true,
    leaseStoreSlots: true,
  }),
  sendRatePerSecond: config().sesSendRatePerSecond,
  dailySends: dynamoDailySends(),
  dailySendCap: storeDailySendCap(),
  standing: storeStanding(),
  recentSends: dynamoRecentSends(),
  onPaused: () => metrics.count(BUSINESS_METRICS.marketingSendsPaused, 1, { by: 'flow' }),
  onRetaken: () => metrics.count(BUSINESS_METRICS.sendClaimsRetaken, 1, { by: 'flow' }),
  clock: systemClock,
}));

export const explainDeps = /* @__PURE__ */ lazy(
  (): ExplainDeps => ({ flows: dynamoFlows(), evaluations: dynamoFlowEvaluations(), runs: dynamoFlowRuns() }),
);
