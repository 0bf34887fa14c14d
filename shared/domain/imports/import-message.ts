import * as v from 'valibot';
import { PermanentError } from '../../errors.ts';

const ImportMessage = v.object({ v: v.literal(1), storeId: v.string(), jobId: v.string() });

/** Reads a message off the import queue; anything else is permanent (no retry can fix it). */
export const parseImportMessage = (body: string): { storeId: string; jobId: string } => {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (cause) {
    throw new PermanentError('Import message is not JSON', { cause });
  }
  const result = v.safeParse(ImportMessage, json);
  if (!result.success) throw new PermanentError(`Not an import message: ${v.summarize(result.issues)}`);
  return { storeId: result.output.storeId, jobId: result.output.jobId };
};
