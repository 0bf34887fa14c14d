/** The campaigns queue: due campaigns' starts and their walks' continuations. */
import { sqs } from '#shared/adapters/aws-clients.ts';
import { required } from '#shared/config.ts';
import type { CampaignQueue } from '#shared/domain/campaigns/ports.ts';
import { batchingSender } from './batching-sender.ts';

export const sqsCampaignQueue = (): CampaignQueue => {
  const send = batchingSender(sqs, () => required('campaignQueueUrl'));
  // The store is the message's group: a fair queue's tenant (docs/limits.md "Shared queues and workers").
  return { send: (message) => send({ MessageBody: JSON.stringify(message), MessageGroupId: message.storeId }) };
};
