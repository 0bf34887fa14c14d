/** The segments queue: builds and their continuations, purges, and contacts whose time window flipped. */
import { sqs } from '#shared/adapters/aws-clients.ts';
import { required } from '#shared/config.ts';
import type { SegmentQueue } from '#shared/domain/segments/ports.ts';
import { batchingSender, sqsSafeJson } from './batching-sender.ts';

export const sqsSegmentQueue = (): SegmentQueue => {
  const send = batchingSender(sqs, () => required('segmentQueueUrl'));
  // Customer ids are the store's own and may hold any character.
  // The store is the message's group: a fair queue's tenant (docs/limits.md "Shared queues and workers").
  return { send: (message) => send({ MessageBody: sqsSafeJson(message), MessageGroupId: message.storeId }) };
};
