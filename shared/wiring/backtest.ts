/** Wiring of the flow backtest (docs/backtest.md): the history, the flows, and read-only live records. */
import { dynamoBacktestJobs, dynamoOpenBacktestJobs } from '#shared/adapters/dynamodb/backtest-jobs.ts';
import { dynamoContactDirectory } from '#shared/adapters/dynamodb/contact-export.ts';
import { dynamoContactsByEmail } from '#shared/adapters/dynamodb/contacts-by-email.ts';
import { dynamoCustomerRepository } from '#shared/adapters/dynamodb/customer.repository.ts';
import { dynamoSuppressions } from '#shared/adapters/dynamodb/email.repositories.ts';
import { dynamoEventHistory } from '#shared/adapters/dynamodb/event-history.repository.ts';
import { dynamoFlows } from '#shared/adapters/dynamodb/flow.repositories.ts';
import { dynamoProductRepository } from '#shared/adapters/dynamodb/product.repository.ts';
import { dynamoSenders } from '#shared/adapters/dynamodb/sending.repositories.ts';
import { dynamoStoreRepository } from '#shared/adapters/dynamodb/store.repository.ts';
import { dynamoStoreSlot } from '#shared/adapters/dynamodb/store-slot.ts';
import { sqsBacktestQueue } from '#shared/adapters/sqs/backtest-queue.ts';
import { systemClock } from '#shared/clock.ts';
import { config } from '#shared/config.ts';
import { type BacktestDeps, recordedSenderCheck } from '#shared/domain/backtest/backtest.ts';
import type { RunBacktestDeps, StartBacktestDeps } from '#shared/domain/backtest/job.ts';
import { contactsUpTo } from '#shared/domain/backtest/sim-repositories.ts';
import type { Position } from '#shared/domain/contacts/export-contacts.ts';
import { lazy } from '#shared/lazy.ts';

const directory = /* @__PURE__ */ lazy(() => dynamoContactDirectory());

export const backtestDeps = /* @__PURE__ */ lazy(
  (): BacktestDeps => ({
    flows: dynamoFlows(),
    history: dynamoEventHistory(systemClock),
    live: {
      customers: dynamoCustomerRepository(),
      contacts: dynamoContactsByEmail(),
      allContacts: (storeId, max) =>
        contactsUpTo((after) => directory().page(storeId, {}, 5_000, after as Position | undefined), max),
      products: dynamoProductRepository(),
      stores: dynamoStoreRepository(),
      suppressions: dynamoSuppressions(),
      senders: { requireVerified: recordedSenderCheck(dynamoSenders()) },
      checkoutRecoveryWaitMs: config().checkoutRecoveryWaitMinutes * 60_000,
      // Sending is not paced in a replay (nothing is sent); the engine only needs a rate to ask for.
      sendRatePerSecond: 1,
    },
    clock: systemClock,
  }),
);

/** The synchronous route: the backtest's dependencies, its store's slot, and the job route named past the budget. */
export const syncBacktestDeps = /* @__PURE__ */ lazy(() => ({
  ...backtestDeps(),
  slot: dynamoStoreSlot(systemClock, 'backtestSlot'),
  jobHint: true,
}));

/** Starting a backtest job: the flows (to check the flow), the jobs, the queue. */
export const startBacktestDeps = /* @__PURE__ */ lazy(
  (): StartBacktestDeps => ({
    flows: dynamoFlows(),
    jobs: dynamoBacktestJobs(),
    open: dynamoOpenBacktestJobs(),
    queue: sqsBacktestQueue(),
    clock: systemClock,
  }),
);

export const backtestJobDeps = /* @__PURE__ */ lazy(() => ({ jobs: dynamoBacktestJobs(), clock: systemClock }));

/** The backtest worker: the backtest's own dependencies, and the jobs. */
export const runBacktestDeps = /* @__PURE__ */ lazy(
  (): RunBacktestDeps => ({
    backtest: backtestDeps(),
    jobs: dynamoBacktestJobs(),
    open: dynamoOpenBacktestJobs(),
    clock: systemClock,
  }),
);
