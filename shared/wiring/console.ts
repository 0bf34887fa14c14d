/** Wiring of the console's pages to their adapters (built once per warm function). */
import { dynamoAttribution } from '#shared/adapters/dynamodb/attribution.ts';
import {
  dynamoCampaignRecipients,
  dynamoCampaigns,
  dynamoSendOutcomes,
} from '#shared/adapters/dynamodb/campaigns.repositories.ts';
import { dynamoContactSearchIndex } from '#shared/adapters/dynamodb/contact-search.ts';
import { dynamoContactsByEmail } from '#shared/adapters/dynamodb/contacts-by-email.ts';
import { dynamoCustomerRepository } from '#shared/adapters/dynamodb/customer.repository.ts';
import { dynamoContactEmails, dynamoSuppressions } from '#shared/adapters/dynamodb/email.repositories.ts';
import { dynamoFlows } from '#shared/adapters/dynamodb/flow.repositories.ts';
import {
  dynamoContactActivity,
  dynamoFlowEvaluations,
  dynamoFlowRuns,
  dynamoTriggerLog,
} from '#shared/adapters/dynamodb/flow-runs.repositories.ts';
import {
  dynamoSegmentMembers,
  dynamoSegmentStates,
  dynamoSegments,
} from '#shared/adapters/dynamodb/segments.repositories.ts';
import { dynamoSendBatchList } from '#shared/adapters/dynamodb/sending.repositories.ts';
import { dynamoStoreReputation } from '#shared/adapters/dynamodb/store-reputation.ts';
import { dynamoDeliveryRepository, dynamoWebhookRepository } from '#shared/adapters/dynamodb/webhook.repositories.ts';
import { systemClock } from '#shared/clock.ts';
import type { CampaignViewDeps } from '#shared/domain/console/campaigns-view.ts';
import type { ContactViewDeps } from '#shared/domain/console/contact-view.ts';
import type { FlowDetailDeps, PreviewDeps } from '#shared/domain/console/flow-detail.ts';
import type { OverviewDeps } from '#shared/domain/console/overview.ts';
import { readStanding } from '#shared/domain/email/reputation.ts';
import type { ManageFlowDeps } from '#shared/domain/flows/manage-flows.ts';
import type { SegmentReadDeps } from '#shared/domain/segments/manage-segments.ts';
import { lazy } from '#shared/lazy.ts';

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
    triggers: dynamoTriggerLog(),
    customers: dynamoCustomerRepository(),
    contacts: dynamoContactsByEmail(),
    clock: systemClock,
  }),
);

/**
 * The contact page: contacts by email, id, phone or name; suppressions, the address's activity, evaluations, runs and
 * emails.
 */
export const contactViewDeps = /* @__PURE__ */ lazy(
  (): ContactViewDeps => ({
    contacts: dynamoContactsByEmail(),
    customers: dynamoCustomerRepository(),
    search: dynamoContactSearchIndex(),
    emails: dynamoContactEmails(),
    suppressions: dynamoSuppressions(),
    activity: dynamoContactActivity(),
    evaluations: dynamoFlowEvaluations(),
    runs: dynamoFlowRuns(),
    flows: dynamoFlows(),
    clock: systemClock,
  }),
);

/** The step form: the flows (read and saved), and what its preview is rendered for. */
export const stepEditDeps = /* @__PURE__ */ lazy((): ManageFlowDeps & PreviewDeps => ({
  flows: dynamoFlows(),
  evaluations: dynamoFlowEvaluations(),
  runs: dynamoFlowRuns(),
  triggers: dynamoTriggerLog(),
  customers: dynamoCustomerRepository(),
  contacts: dynamoContactsByEmail(),
  clock: systemClock,
}));

/** The webhooks page: subscriptions and their deliveries (re-sending uses the webhooks wiring, which sends). */
export const webhooksViewDeps = /* @__PURE__ */ lazy(() => ({
  webhooks: dynamoWebhookRepository(),
  deliveries: dynamoDeliveryRepository(),
}));

/** The bulk sending list: the store's batches, newest first. */
export const sendingViewDeps = /* @__PURE__ */ lazy(() => ({ list: dynamoSendBatchList() }));

/** The segment pages: the segments, their live counts and members (the segments API's reads, without its queue). */
export const segmentsViewDeps = /* @__PURE__ */ lazy(
  (): SegmentReadDeps => ({
    segments: dynamoSegments(),
    states: dynamoSegmentStates(),
    members: dynamoSegmentMembers(),
  }),
);

/** The campaign pages: the campaigns API's reads, and the segments' names. */
export const campaignsViewDeps = /* @__PURE__ */ lazy(
  (): CampaignViewDeps => ({
    campaigns: dynamoCampaigns(),
    attribution: dynamoAttribution(),
    recipients: dynamoCampaignRecipients(),
    outcomes: dynamoSendOutcomes(),
    segments: dynamoSegments(),
    states: dynamoSegmentStates(),
    clock: systemClock,
  }),
);

/** The sending guard's standing shown on every console page (one read of two days' counts per page). */
export const consoleStanding = /* @__PURE__ */ lazy(() => readStanding(dynamoStoreReputation(), systemClock));
