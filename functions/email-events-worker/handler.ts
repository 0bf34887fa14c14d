/**
 * Consumes the email-events queue (SES configuration set → SNS → SQS): each SES event becomes the spec's
 * `transmission/callback` webhook, and hard bounces, complaints and opt-outs suppress the address for the store.
 * Unknown or malformed events are logged and acknowledged (`PermanentError`); anything else is retried by the queue.
 */

import { QUEUES } from '#shared/catalog/queues.ts';
import { handleSesEvent } from '#shared/domain/email/email-events.ts';
import { parseSesNotification } from '#shared/domain/email/ses-event.ts';
import { segmentsAfterEngagement } from '#shared/domain/segments/after-event.ts';
import { countEmailEvent } from '#shared/observability/email-metrics.ts';
import { logger } from '#shared/observability.ts';
import { queueWorker } from '#shared/queue/batch.ts';
import { followUp } from '#shared/queue/follow-up.ts';
import { emailEventDeps, flushEmailEventCounters } from '#shared/wiring/email-events.ts';
import { forgetBatchSegments, segmentEventDeps } from '#shared/wiring/segments.ts';

export const handler = queueWorker({
  queue: QUEUES.emailEvents,
  parse: parseSesNotification,
  handle: async (event, { attempt }) => {
    const outcome = await handleSesEvent(emailEventDeps(), event, { redelivered: attempt > 1 });
    // An open, a click or an opt-out may move the recipient's contacts into or out of segments.
    const { engaged, storeId } = outcome;
    const segments =
      engaged && storeId
        ? await followUp(
            'Segment step',
            () =>
              segmentsAfterEngagement(segmentEventDeps(), storeId, {
                ...engaged,
                kind:
                  outcome.emitted === 'initial_open' ? 'open' : outcome.emitted === 'click' ? 'click' : 'unsubscribe',
              }),
            { storeId, messageId: event.mail.messageId },
          )
        : undefined;
    logger.info('Email event handled', {
      sesType: event.type,
      messageId: event.mail.messageId,
      ...outcome,
      ...(segments ? { segments } : {}),
    });
    countEmailEvent(event);
  },
  // The batch's funnel counters, one write per store, scope and day; the segments it read forgotten.
  afterBatch: async () => {
    forgetBatchSegments();
    await flushEmailEventCounters();
  },
});
