import * as v from 'valibot';
import { queueMessage } from '#shared/queue/message.ts';

const ImportMessage = v.pipe(
  v.object({ v: v.literal(1), storeId: v.string(), jobId: v.string() }),
  v.transform(({ storeId, jobId }) => ({ storeId, jobId })),
);

/** Reads a message off the import queue; anything else is permanent (no retry can fix it). */
export const parseImportMessage = queueMessage(ImportMessage, 'import message');
