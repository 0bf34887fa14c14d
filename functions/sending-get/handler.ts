/** `GET {sending_url}/api/v1/sending/{id}`: a batch's status, counts, and every rejected or failed recipient and why. */

import { SENDING_LIMITS } from '#shared/domain/email/bulk-model.ts';
import { readBatch } from '#shared/domain/email/read-batch.ts';
import { notFound } from '#shared/errors.ts';
import { sendingReply } from '#shared/http/responses.ts';
import { httpRoute } from '#shared/http/route.ts';
import { SendBatchPath } from '#shared/http/route-inputs.ts';
import { batchReadDeps } from '#shared/wiring/sending.ts';

export const handler = httpRoute({
  path: SendBatchPath,
  api: 'sending',
  rateLimit: { bucket: 'sending-reads', perSecond: SENDING_LIMITS.readsPerSecond },
  handle: async ({ store, path }) => {
    const batch = await readBatch(batchReadDeps(), store.storeId, path.id);
    // Another store's batch answers exactly like a missing one.
    if (!batch) throw notFound('Batch not found');
    return sendingReply.ok(`batch ${batch.status}`, batch);
  },
});
