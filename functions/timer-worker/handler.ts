/**
 * Consumes the timers queue (fired Scheduler schedules): abandoned-cart and checkout-recovery checks, flow waits
 * (handed to the flows queue), and the event history's daily compaction.
 */

import { QUEUES } from '#shared/catalog/queues.ts';
import { fireTimer } from '#shared/domain/timers/fire-timer.ts';
import { parseTimerMessage } from '#shared/domain/timers/timer-message.ts';
import { logger } from '#shared/observability.ts';
import { queueWorker } from '#shared/queue/batch.ts';
import { fireTimerDeps } from '#shared/wiring/ingest.ts';

export const handler = queueWorker({
  queue: QUEUES.timers,
  parse: parseTimerMessage,
  handle: async (timer, { context }) => {
    // A tick releasing a large minute (or a large day's compaction) stops with time to spare and goes on in the queue's
    // retry.
    const outcome = await fireTimer(fireTimerDeps(), timer, () => context.getRemainingTimeInMillis() > 10_000);
    const subject =
      timer.kind === 'flow'
        ? { runId: timer.runId, step: timer.step }
        : timer.kind === 'tick'
          ? { minute: new Date(timer.minute).toISOString() }
          : timer.kind === 'history'
            ? { day: timer.day }
            : timer.kind === 'segment'
              ? { customerId: timer.customerId }
              : timer.kind === 'campaign'
                ? { campaignId: timer.campaignId }
                : { token: timer.token };
    logger.info('Timer fired', { storeId: timer.storeId, timer: timer.kind, ...subject, ...outcome });
  },
});
