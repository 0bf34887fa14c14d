import * as v from 'valibot';
import { queueMessage } from '#shared/queue/message.ts';
import type { IngestMessage } from './model.ts';

const IngestMessageSchema = v.object({
  v: v.literal(1),
  storeId: v.string(),
  sourceId: v.string(),
  endpoint: v.string(),
  interface: v.picklist(['general', 'headless']),
  acceptedAt: v.number(),
  storeType: v.optional(v.picklist(['direct', 'platform']), 'direct'),
  key: v.exactOptional(v.literal('publishable')),
  data: v.record(v.string(), v.unknown()),
});

/** Reads a message off the ingest queue; a body that is not one is permanent (no retry can fix it). */
export const parseIngestMessage: (body: string) => IngestMessage = queueMessage(IngestMessageSchema, 'ingest message');
