/** Wiring of the email-event and unsubscribe use cases to their adapters (built once per warm function). */

import { coalescedGets, directPuts } from '#shared/adapters/dynamodb/coalesced.ts';
import { dynamoContactsByEmail } from '#shared/adapters/dynamodb/contacts-by-email.ts';
import { dynamoCustomerRepository } from '#shared/adapters/dynamodb/customer.repository.ts';
import {
  dynamoContactEmails,
  dynamoSentMessages,
  dynamoSuppressions,
} from '#shared/adapters/dynamodb/email.repositories.ts';
import { dynamoStoreRepository } from '#shared/adapters/dynamodb/store.repository.ts';
import { dynamoStandingAnnouncements, dynamoStoreReputation } from '#shared/adapters/dynamodb/store-reputation.ts';
import { dynamoWebhookRepository } from '#shared/adapters/dynamodb/webhook.repositories.ts';
import { confirmLinks } from '#shared/adapters/email/confirm-links.ts';
import { unsubscribeLinks } from '#shared/adapters/email/unsubscribe-links.ts';
import { queuedFlowTriggers } from '#shared/adapters/sqs/flow-queue.ts';
import { systemClock } from '#shared/clock.ts';
import type { ConfirmDeps } from '#shared/domain/contacts/sign-up-confirmation.ts';
import type { EmailEventDeps } from '#shared/domain/email/email-events.ts';
import { type AnnounceStandingDeps, announceStanding, reputationBuffer } from '#shared/domain/email/reputation.ts';
import type { UnsubscribeDeps } from '#shared/domain/email/unsubscribe.ts';
import { webhookEmitter } from '#shared/domain/webhooks/emit.ts';
import type { ConfirmLinkDeps } from '#shared/http/confirm-pages.ts';
import type { UnsubscribeLinkDeps } from '#shared/http/unsubscribe-pages.ts';
import { lazy } from '#shared/lazy.ts';
import { logger } from '#shared/observability.ts';
import { batchCounters } from './counters.ts';
import { emitDeps } from './webhooks.ts';

export const unsubscribeDeps = /* @__PURE__ */ lazy(
  (): UnsubscribeDeps => ({
    customers: dynamoCustomerRepository(),
    contactsByEmail: dynamoContactsByEmail(),
    stores: dynamoStoreRepository(),
    suppressions: dynamoSuppressions(),
    webhooks: webhookEmitter(emitDeps()),
    clock: systemClock,
  }),
);

/** The funnel counters a batch of SES events adds, written once at the batch's end (the worker's `afterBatch`). */
const eventCounters = /* @__PURE__ */ lazy(() => batchCounters('Email event'));

/** The bounce guard's counts a batch adds, likewise written once at its end. */
const reputationCounts = /* @__PURE__ */ lazy(() => reputationBuffer(dynamoStoreReputation()));

/** The end of a batch of SES events: its funnel counters and its bounce-guard counts written. */
export const flushEmailEventCounters = async (): Promise<void> => {
  const [counters, reputation] = await Promise.allSettled([eventCounters().flush(), reputationCounts().flush()]);
  if (reputation.status === 'rejected') {
    logger.warn('Bounce guard counts not written; kept for the next batch', { error: reputation.reason });
  } else {
    await announceChanges(reputation.value);
  }
  if (counters.status === 'rejected') throw counters.reason;
};

/**
 * Each store's pause or its end, told to its `store/sending_paused` webhook. A failure is tried again with the
 * store's next SES event (the change stays unannounced until then, `announceStanding` compares with the last told).
 */
const announceChanges = async (stores: readonly string[]) => {
  for (const storeId of stores) {
    try {
      await announceStanding(standingAnnouncementDeps(), storeId);
    } catch (error) {
      logger.warn("Sending standing not announced; tried again with the store's next SES event", { storeId, error });
    }
  }
};

export const standingAnnouncementDeps = /* @__PURE__ */ lazy(
  (): AnnounceStandingDeps => ({
    reputation: dynamoStoreReputation(),
    announcements: dynamoStandingAnnouncements(),
    webhooks: webhookEmitter(emitDeps()),
    clock: systemClock,
  }),
);

/**
 * The batch's message and webhook-subscription reads, gathered per turn of the event loop (a batch of up to
 * 100 SES events reads them side by side, `coalesced.ts`): one `BatchGetItem` instead of one `GetItem` each.
 */
const eventReads = /* @__PURE__ */ lazy(() => coalescedGets());

export const emailEventDeps = /* @__PURE__ */ lazy(
  (): EmailEventDeps => ({
    attribution: eventCounters().store,
    ...unsubscribeDeps(),
    webhooks: webhookEmitter({ ...emitDeps(), webhooks: dynamoWebhookRepository(eventReads()) }),
    sentMessages: dynamoSentMessages(directPuts, eventReads()),
    reputation: reputationCounts().reputation,
    contactEmails: dynamoContactEmails(),
  }),
);

/** The public unsubscribe pages: the link verifier and the store a link names. */
export const unsubscribeLinkDeps = /* @__PURE__ */ lazy(
  (): UnsubscribeLinkDeps => ({
    links: unsubscribeLinks(),
    stores: dynamoStoreRepository(),
  }),
);

/** The public confirmation pages: the link verifier, the store a link names, the clock (links expire). */
export const confirmLinkDeps = /* @__PURE__ */ lazy(
  (): ConfirmLinkDeps => ({ links: confirmLinks(), stores: dynamoStoreRepository(), clock: systemClock }),
);

/** A confirmation: the contacts of the address, their consent write (`customer/marketing`), the welcome trigger. */
export const confirmDeps = /* @__PURE__ */ lazy(
  (): ConfirmDeps => ({
    customers: dynamoCustomerRepository(),
    contactsByEmail: dynamoContactsByEmail(),
    webhooks: webhookEmitter(emitDeps()),
    triggers: queuedFlowTriggers(),
    clock: systemClock,
  }),
);
