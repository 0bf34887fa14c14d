import * as v from 'valibot';
import { PermanentError } from '../../errors.ts';
import type { IngestMessage } from '../ports.ts';

const IngestMessageSchema = v.object({
  v: v.literal(1),
  storeId: v.string(),
  sourceId: v.string(),
  endpoint: v.string(),
  interface: v.picklist(['general', 'headless']),
  acceptedAt: v.number(),
  storeType: v.optional(v.picklist(['direct', 'platform']), 'direct'),
  data: v.record(v.string(), v.unknown()),
});

/** Reads a message off the ingest queue; a body that is not one is permanent (no retry can fix it). */
export const parseIngestMessage = (body: string): IngestMessage => {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (cause) {
    throw new PermanentError('Ingest message is not JSON', { cause });
  }
  const result = v.safeParse(IngestMessageSchema, json);
  if (!result.success) throw new PermanentError(`Not an ingest message: ${v.summarize(result.issues)}`);
  return result.output;
};
