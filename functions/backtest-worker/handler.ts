/** Consumes the backtest queue: runs a backtest job within the invocation's time and records its answer. */

import { QUEUES } from '#shared/catalog/queues.ts';
import { runBacktestJob } from '#shared/domain/backtest/job.ts';
import { parseBacktestMessage } from '#shared/domain/backtest/job-message.ts';
import { logger } from '#shared/observability.ts';
import { queueWorker } from '#shared/queue/batch.ts';
import { runBacktestDeps } from '#shared/wiring/backtest.ts';

export const handler = queueWorker({
  queue: QUEUES.backtests,
  parse: parseBacktestMessage,
  handle: async (message, { context, lastAttempt }) => {
    const outcome = await runBacktestJob(runBacktestDeps(), message, () => context.getRemainingTimeInMillis(), {
      lastAttempt,
    });
    logger.info('Backtest run', { ...message, outcome });
  },
});
