import * as v from 'valibot';
import { queueMessage } from '#shared/queue/message.ts';

const DeliveryMessage = v.pipe(
  v.object({ v: v.literal(1), storeId: v.string(), deliveryId: v.string() }),
  v.transform(({ storeId, deliveryId }) => ({ storeId, deliveryId })),
);

/** Reads a message off the webhook delivery queue; anything else is permanent (no retry can fix it). */
export const parseDeliveryMessage = queueMessage(DeliveryMessage, 'delivery message');
