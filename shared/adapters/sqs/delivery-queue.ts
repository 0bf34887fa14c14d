/** The webhook delivery queue: `{v: 1, storeId, deliveryId}` per delivery to attempt, sent 10 per SQS call. */
import { sqs } from '#shared/adapters/aws-clients.ts';
import { required } from '#shared/config.ts';
import type { DeliveryQueue } from '#shared/domain/webhooks/ports.ts';
import { batchingSender } from './batching-sender.ts';

export const sqsDeliveryQueue = (): DeliveryQueue => {
  const send = batchingSender(sqs, () => required('webhookQueueUrl'));
  return {
    enqueue: (storeId, deliveryId) =>
      send({ MessageBody: JSON.stringify({ v: 1, storeId, deliveryId }), MessageGroupId: storeId }),
  };
};
