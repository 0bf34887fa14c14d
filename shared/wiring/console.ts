/** Wiring of the console's pages to their adapters (built once per warm function). */
import { dynamoAttribution } from '#shared/adapters/dynamodb/attribution.ts';
import { dynamoContactsByEmail } from '#shared/adapters/dynamodb/contacts-by-email.ts';
import { dynamoCustomerRepository } from '#shared/adapters/dynamodb/customer.repository.ts';
import { dynamoFlows } from '#shared/adapters/dynamodb/flow.repositories.ts';
import { dynamoFlowEvaluations, dynamoFlowRuns } from '#shared/adapters/dynamodb/flow-runs.repositories.ts';
import type { FlowDetailDeps } from '#shared/domain/console/flow-detail.ts';
import type { OverviewDeps } from '#shared/domain/console/overview.ts';
import { lazy } from '#shared/lazy.ts';
import { systemClock } from './clock.ts';

/** The store overview: the day counters and the store's flows. */
export const overviewDeps = /* @__PURE__ */ lazy(
  (): OverviewDeps => ({ attribution: dynamoAttribution(), flows: dynamoFlows(), clock: systemClock }),
);

/** The flow page: its counters, evaluations and runs, and the contact a preview is rendered for. */
export const flowDetailDeps = /* @__PURE__ */ lazy(
  (): FlowDetailDeps => ({
    attribution: dynamoAttribution(),
    flows: dynamoFlows(),
    evaluations: dynamoFlowEvaluations(),
    runs: dynamoFlowRuns(),
    customers: dynamoCustomerRepository(),
    contacts: dynamoContactsByEmail(),
    clock: systemClock,
  }),
);
