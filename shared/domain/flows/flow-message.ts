/** Messages of the flows queue: a trigger to evaluate, or a run whose wait ended. */
import * as v from 'valibot';
import { queueMessage } from '#shared/queue/message.ts';

const FlowMessage = v.variant('type', [
  v.object({
    v: v.literal(1),
    type: v.literal('trigger'),
    storeId: v.string(),
    triggerId: v.string(),
    /** When the trigger's runs may start, reserved in its store's run-start budget (absent: not put off). */
    reservedAt: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
    /** The flow id after which evaluation goes on: a later step of a trigger whose runs start in steps. */
    after: v.optional(v.string()),
  }),
  v.object({ v: v.literal(1), type: v.literal('resume'), storeId: v.string(), runId: v.string(), step: v.string() }),
]);
export type FlowMessage = v.InferOutput<typeof FlowMessage>;

/** Reads a flows-queue message; anything else is permanent (no retry can fix it). */
export const parseFlowMessage = queueMessage(FlowMessage, 'flow message');
