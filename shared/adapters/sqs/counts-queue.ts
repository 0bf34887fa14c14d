/** The counters queue (`shared/domain/attribution/queued-counts.ts`): the hot paths' batches' counts. */
import { sqs } from '#shared/adapters/aws-clients.ts';
import { required } from '#shared/config.ts';
import type { CountsQueue } from '#shared/domain/attribution/ports.ts';
import { batchingSender, sqsSafeJson } from './batching-sender.ts';

export const sqsCountsQueue = (): CountsQueue => {
  const send = batchingSender(sqs, () => required('countersQueueUrl'));
  // Scopes and counter names hold ids a store chose (a flow's steps): escaped like any stored text.
  return { send: (message) => send({ MessageBody: sqsSafeJson(message) }) };
};
