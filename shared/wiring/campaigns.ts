/** Wiring of the campaign use cases to their adapters (built once per warm function). */

import { dynamoAttribution } from '#shared/adapters/dynamodb/attribution.ts';
import {
  dynamoActiveCampaigns,
  dynamoCampaignRecipients,
  dynamoCampaigns,
  dynamoContactsById,
  dynamoSendOutcomes,
} from '#shared/adapters/dynamodb/campaigns.repositories.ts';
import { dynamoSuppressions } from '#shared/adapters/dynamodb/email.repositories.ts';
import { dynamoRecentSends } from '#shared/adapters/dynamodb/recent-sends.ts';
import {
  dynamoSegmentMembers,
  dynamoSegmentStates,
  dynamoSegments,
} from '#shared/adapters/dynamodb/segments.repositories.ts';
import { dynamoDailySends } from '#shared/adapters/dynamodb/send-pacer.ts';
import { dynamoSendBatches } from '#shared/adapters/dynamodb/sending.repositories.ts';
import { dynamoTimerBuckets } from '#shared/adapters/dynamodb/timer-buckets.ts';
import { schedulerTimers } from '#shared/adapters/scheduler/timers.ts';
import { sqsCampaignQueue } from '#shared/adapters/sqs/campaign-queue.ts';
import { sqsSendQueue } from '#shared/adapters/sqs/send-queue.ts';
import { systemClock } from '#shared/clock.ts';
import type {
  CampaignRecipientsDeps,
  CampaignStatsDeps,
  ManageCampaignDeps,
} from '#shared/domain/campaigns/manage-campaigns.ts';
import type { CampaignWorkerDeps } from '#shared/domain/campaigns/run-campaign.ts';
import { wheelTimers } from '#shared/domain/timers/wheel.ts';
import { lazy } from '#shared/lazy.ts';
import { LIMITS } from '#shared/limits.ts';
import { senderDeps, storeDailySendCap, storeSmartSending } from './sending.ts';

export const manageCampaignDeps = /* @__PURE__ */ lazy(
  (): ManageCampaignDeps => ({
    campaigns: dynamoCampaigns(),
    active: dynamoActiveCampaigns(),
    segments: dynamoSegments(),
    segmentStates: dynamoSegmentStates(),
    senders: senderDeps(),
    queue: sqsCampaignQueue(),
    // A due campaign through the timer wheel: one Scheduler schedule per store and due minute.
    timers: wheelTimers({
      buckets: dynamoTimerBuckets(),
      schedules: schedulerTimers(),
      clock: systemClock,
      waitingRunsCap: LIMITS.waitingRunsPerStore,
    }),
    clock: systemClock,
  }),
);

/** The cancel route: the campaign and the store's active count, nothing of the sender or the Scheduler. */
export const cancelCampaignDeps = /* @__PURE__ */ lazy(() => ({
  campaigns: dynamoCampaigns(),
  active: dynamoActiveCampaigns(),
  clock: systemClock,
}));

export const campaignReadDeps = /* @__PURE__ */ lazy((): CampaignStatsDeps & CampaignRecipientsDeps => ({
  campaigns: dynamoCampaigns(),
  attribution: dynamoAttribution(),
  recipients: dynamoCampaignRecipients(),
  outcomes: dynamoSendOutcomes(),
  clock: systemClock,
}));

export const campaignWorkerDeps = /* @__PURE__ */ lazy(
  (): CampaignWorkerDeps => ({
    campaigns: dynamoCampaigns(),
    active: dynamoActiveCampaigns(),
    recipients: dynamoCampaignRecipients(),
    members: dynamoSegmentMembers(),
    contacts: dynamoContactsById(),
    suppressions: dynamoSuppressions(),
    dailySends: dynamoDailySends(),
    dailySendCap: storeDailySendCap(),
    smartSending: storeSmartSending(),
    recentSends: dynamoRecentSends(),
    batches: dynamoSendBatches(systemClock),
    sendQueue: sqsSendQueue(),
    queue: sqsCampaignQueue(),
    // Send batches held for the recipients' quiet hours: one wheel entry each, one schedule per store and minute.
    timers: wheelTimers({
      buckets: dynamoTimerBuckets(),
      schedules: schedulerTimers(),
      clock: systemClock,
      waitingRunsCap: LIMITS.waitingRunsPerStore,
    }),
    clock: systemClock,
  }),
);
