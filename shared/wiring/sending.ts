/** Wiring of the senders, bulk sending and send worker use cases to their adapters (built once per warm function). */

import { dynamoBulkBudget } from '#shared/adapters/dynamodb/budgets.ts';
import { dynamoCampaignState, dynamoCampaigns } from '#shared/adapters/dynamodb/campaigns.repositories.ts';
import { dynamoSentMessages, dynamoSuppressions } from '#shared/adapters/dynamodb/email.repositories.ts';
import { dynamoDailySends, dynamoSendPacer } from '#shared/adapters/dynamodb/send-pacer.ts';
import { dynamoSendBatches, dynamoSenders } from '#shared/adapters/dynamodb/sending.repositories.ts';
import { cachedPerStore, dynamoStoreRepository } from '#shared/adapters/dynamodb/store.repository.ts';
import { dynamoStoreReputation } from '#shared/adapters/dynamodb/store-reputation.ts';
import { unsubscribeLinks } from '#shared/adapters/email/unsubscribe-links.ts';
import { sesIdentities } from '#shared/adapters/ses/identities.ts';
import { sesMailer } from '#shared/adapters/ses/mailer.ts';
import { sqsSendQueue } from '#shared/adapters/sqs/send-queue.ts';
import { systemClock } from '#shared/clock.ts';
import { config } from '#shared/config.ts';
import { bulkEmailed } from '#shared/domain/attribution/attribute.ts';
import type { AcceptBulkDeps } from '#shared/domain/email/accept-bulk.ts';
import type { CampaignChunk } from '#shared/domain/email/bulk-model.ts';
import type { DailySendCap } from '#shared/domain/email/ports.ts';
import {
  announceStanding,
  readStanding,
  reputationDays,
  type StandingCheck,
  standingOf,
} from '#shared/domain/email/reputation.ts';
import type { SendWorkerDeps } from '#shared/domain/email/send-chunk.ts';
import type { SenderDeps } from '#shared/domain/email/senders.ts';
import type { SmartSendingSettings } from '#shared/domain/email/smart-sending.ts';
import type { SendingSettingsDeps } from '#shared/domain/stores/sending-settings.ts';
import { lazy } from '#shared/lazy.ts';
import { BUSINESS_METRICS, metrics } from '#shared/observability.ts';
import { batchCounters } from './counters.ts';
import { standingAnnouncementDeps } from './email-events.ts';

export const senderDeps = /* @__PURE__ */ lazy(
  (): SenderDeps => ({ senders: dynamoSenders(), identities: sesIdentities(), clock: systemClock }),
);

export const acceptBulkDeps = /* @__PURE__ */ lazy(
  (): AcceptBulkDeps => ({
    senders: senderDeps(),
    dailySends: dynamoDailySends(),
    dailySendCap: storeDailySendCap(),
    recipientBudget: {
      budget: dynamoBulkBudget(),
      perSecond: config().storeBulkRecipientsPerSecond,
    },
    standing: storeStanding(),
    onPaused: () => metrics.count(BUSINESS_METRICS.marketingSendsPaused, 1, { by: 'bulk' }),
    suppressions: dynamoSuppressions(),
    batches: dynamoSendBatches(systemClock),
    queue: sqsSendQueue(),
    clock: systemClock,
  }),
);

/** The smart-sending settings routes: the store record, read and written directly (no cache: a merchant reads back). */
export const sendingSettingsDeps = /* @__PURE__ */ lazy(
  (): SendingSettingsDeps => ({
    stores: dynamoStoreRepository(),
    clock: systemClock,
    standing: readStanding(dynamoStoreReputation(), systemClock),
  }),
);

/** Each store's daily cap (its own, else the deployment's), read at most once a minute per store per warm function. */
export const storeDailySendCap = /* @__PURE__ */ lazy((): DailySendCap => {
  const fallback = config().storeDailySendCap;
  return cachedPerStore(systemClock, 60_000, (store) => store?.dailySendCap ?? fallback);
});

/** Each store's smart-sending settings (docs/smart-sending.md), read at most once a minute per store per warm function. */
export const storeSmartSending = /* @__PURE__ */ lazy(
  (): ((storeId: string) => Promise<SmartSendingSettings | undefined>) =>
    cachedPerStore(systemClock, 60_000, (store) => store?.smartSending),
);

/** The bounce and complaint guard, read at most once a minute per store per warm function. */
export const storeStanding = /* @__PURE__ */ lazy((): StandingCheck => {
  const check = standingOf(dynamoStoreReputation(), systemClock);
  const cache = new Map<string, { value: string | undefined; until: number }>();
  return async (storeId) => {
    const hit = cache.get(storeId);
    if (hit && hit.until > systemClock.now()) return hit.value;
    const value = await check(storeId);
    if (cache.size >= 10_000) cache.clear();
    cache.set(storeId, { value, until: systemClock.now() + 60_000 });
    return value;
  };
});

/** `store resume-sending`: the store's guard counts start afresh (functions read them at most a minute late). */
/** The operator's resume: the guard's counts start afresh, and the store's webhook hears that the pause ended. */
export const resumeSending = async (storeId: string) => {
  await dynamoStoreReputation().reset(storeId, reputationDays(systemClock.now()));
  await announceStanding(standingAnnouncementDeps(), storeId);
};

export const batchReadDeps = () => ({ batches: dynamoSendBatches(systemClock) });

/** Slots are reserved at most this far ahead: a wait of this length fits well within the worker's timeout. */
export const PACING_HORIZON_SECONDS = 20;
/** Longer than one attempt of the worker (60 s timeout), shorter than the queue's 180 s visibility timeout. */
const CHUNK_LEASE_MS = 90_000;

/** What the send worker asks and tells of a campaign's batches (docs/campaigns.md). */
const campaignHooks = () => {
  const campaigns = dynamoCampaigns();
  return {
    campaignCancelled: async (storeId: string, campaignId: string) =>
      (await dynamoCampaignState(storeId, campaignId)) === 'cancelled',
    onCampaignChunk: (
      storeId: string,
      campaignId: string,
      chunk: CampaignChunk | undefined,
      counts: { sent: number; failed: number },
    ) => campaigns.addOutcome(storeId, campaignId, chunk, counts),
  };
};

/** The send worker's counts (a completed chunk's sent emails), queued at its batch's end like the other workers'. */
const sendCounters = /* @__PURE__ */ lazy(() => batchCounters('Send'));

export const afterSendBatch = async (): Promise<void> => {
  await sendCounters().flush();
};

export const sendWorkerDeps = /* @__PURE__ */ lazy(
  (): SendWorkerDeps => ({
    ...campaignHooks(),
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
    onChunkSent: (batch, sent, at) =>
      bulkEmailed(sendCounters().store, batch.storeId, { batchId: batch.id, campaignId: batch.campaignId }, sent, at),
    onRetaken: () => metrics.count(BUSINESS_METRICS.sendClaimsRetaken, 1, { by: 'bulk' }),
  }),
);
