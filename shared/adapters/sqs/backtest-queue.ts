/** The backtest queue: `{v: 1, storeId, backtestId}` per job (docs/backtest.md "As a job"). */
import { sqs } from '#shared/adapters/aws-clients.ts';
import { required } from '#shared/config.ts';
import type { BacktestQueue } from '#shared/domain/backtest/job.ts';
import { batchingSender } from './batching-sender.ts';

export const sqsBacktestQueue = (): BacktestQueue => {
  const send = batchingSender(sqs, () => required('backtestQueueUrl'));
  return {
    enqueue: (storeId, backtestId) => send({ MessageBody: JSON.stringify({ v: 1, storeId, backtestId }) }),
  };
};
