import * as v from 'valibot';
import { queueMessage } from '#shared/queue/message.ts';
import type { SegmentMessage } from './ports.ts';

const SegmentMessageSchema = v.variant('type', [
  v.object({
    v: v.literal(1),
    type: v.literal('build'),
    storeId: v.string(),
    segmentId: v.string(),
    revision: v.number(),
    cursor: v.optional(v.string()),
  }),
  v.object({
    v: v.literal(1),
    type: v.literal('contact'),
    storeId: v.string(),
    customerId: v.string(),
    at: v.number(),
  }),
  v.object({ v: v.literal(1), type: v.literal('purge'), storeId: v.string(), segmentId: v.string() }),
]);

/** Reads a segments-queue message; anything else is permanent (no retry can fix it). */
export const parseSegmentMessage: (body: string) => SegmentMessage = queueMessage(
  SegmentMessageSchema,
  'segment message',
) as (body: string) => SegmentMessage;
