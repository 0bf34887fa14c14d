/** Consumes the timers queue (fired Scheduler schedules): abandoned-cart and checkout-recovery checks. */
import { fireTimerDeps } from '../../shared/adapters/ingest.ts';
import { fireTimer } from '../../shared/domain/timers/fire-timer.ts';
import { parseTimerMessage } from '../../shared/domain/timers/timer-message.ts';
import { logger } from '../../shared/observability.ts';
import { queueWorker } from '../../shared/queue/batch.ts';

export const handler = queueWorker({
  parse: parseTimerMessage,
  handle: async (timer) => {
    const outcome = await fireTimer(fireTimerDeps(), timer);
    logger.info('Timer fired', { storeId: timer.storeId, timer: timer.kind, token: timer.token, ...outcome });
  },
});
