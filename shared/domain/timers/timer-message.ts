import * as v from 'valibot';
import { queueMessage } from '#shared/queue/message.ts';
import type { TimerPayload } from './model.ts';

const TimerMessage = v.variant('kind', [
  v.object({ v: v.literal(1), kind: v.literal('cart'), storeId: v.string(), token: v.string(), revision: v.number() }),
  v.object({ v: v.literal(1), kind: v.literal('checkout'), storeId: v.string(), token: v.string() }),
  v.object({ v: v.literal(1), kind: v.literal('flow'), storeId: v.string(), runId: v.string(), step: v.string() }),
  v.object({ v: v.literal(1), kind: v.literal('tick'), storeId: v.string(), minute: v.number() }),
  v.object({
    v: v.literal(1),
    kind: v.literal('history'),
    storeId: v.string(),
    day: v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}$/)),
  }),
  v.object({
    v: v.literal(1),
    kind: v.literal('segment'),
    storeId: v.string(),
    customerId: v.string(),
    at: v.number(),
  }),
  v.object({
    v: v.literal(1),
    kind: v.literal('campaign'),
    storeId: v.string(),
    campaignId: v.string(),
    batchId: v.exactOptional(v.string()),
  }),
]);

/** Reads a fired timer off the timers queue; anything else is permanent (no retry can fix it). */
export const parseTimerMessage: (body: string) => TimerPayload = queueMessage(TimerMessage, 'timer message');
