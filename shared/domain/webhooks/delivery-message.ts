import * as v from 'valibot';
import { PermanentError } from '../../errors.ts';

const DeliveryMessage = v.object({ v: v.literal(1), storeId: v.string(), deliveryId: v.string() });

/** Reads a message off the webhook delivery queue; anything else is permanent (no retry can fix it). */
export const parseDeliveryMessage = (body: string): { storeId: string; deliveryId: string } => {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (cause) {
    throw new PermanentError('Delivery message is not JSON', { cause });
  }
  const result = v.safeParse(DeliveryMessage, json);
  if (!result.success) throw new PermanentError(`Not a delivery message: ${v.summarize(result.issues)}`);
  return { storeId: result.output.storeId, deliveryId: result.output.deliveryId };
};
