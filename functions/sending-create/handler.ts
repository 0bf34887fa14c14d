/**
 * `POST {sending_url}/api/v1/sending`: accept a bulk email of 1 to 2,000 recipients. Answers once the batch is stored
 * and queued (SES is not waited for): `{totalAccepted, totalRejected, id, code: "200", succeed: true, message,
 * rejections}`.
 */

import { acceptBulk } from '#shared/domain/email/accept-bulk.ts';
import { acceptanceMessage, SENDING_LIMITS } from '#shared/domain/email/bulk-model.ts';
import { parseBulkRequest } from '#shared/domain/email/bulk-request.ts';
import { sendingReply } from '#shared/http/responses.ts';
import { httpRoute } from '#shared/http/route.ts';
import { countBulkRecipients } from '#shared/observability/email-metrics.ts';
import { acceptBulkDeps } from '#shared/wiring/sending.ts';

export const handler = httpRoute({
  api: 'sending',
  rateLimit: { bucket: 'sending', perSecond: SENDING_LIMITS.sendsPerSecond },
  maxBodyBytes: SENDING_LIMITS.maxBodyBytes,
  body: parseBulkRequest,
  handle: async ({ store, body }) => {
    const accepted = await acceptBulk(acceptBulkDeps(), store.storeId, body);
    // Counted once the batch is stored and queued: a refused request accepted no one.
    countBulkRecipients(accepted);
    return sendingReply.ok(acceptanceMessage(accepted), {
      totalAccepted: accepted.totalAccepted,
      totalRejected: accepted.totalRejected,
      id: accepted.id,
      rejections: accepted.rejections,
    });
  },
});
