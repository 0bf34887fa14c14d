/**
 * `GET {base_url}/back-office/stores/{storeId}/sending/{batchId}`: one bulk send in the console: its counts
 * and every recipient rejected at the request or refused by SES, with why (`GET /api/v1/sending/{id}`'s reading).
 */

import { readBatch } from '#shared/domain/email/read-batch.ts';
import { htmlPage } from '#shared/http/back-office-pages.ts';
import { batchPage } from '#shared/http/console/sending-pages.ts';
import { openConsoleStore } from '#shared/http/console-access.ts';
import { httpRoute } from '#shared/http/route.ts';
import { ConsoleBatchPath } from '#shared/http/route-inputs.ts';
import { batchReadDeps } from '#shared/wiring/sending.ts';

export const handler = httpRoute({
  api: 'backOffice',
  auth: 'none',
  path: ConsoleBatchPath,
  handle: async ({ event, path }) => {
    const opened = await openConsoleStore(event, path.storeId);
    if ('refused' in opened) return opened.refused;
    const batch = await readBatch(batchReadDeps(), opened.store.storeId, path.batchId);
    if (!batch) return htmlPage(404, 'Batch not found', 'No bulk send with this id in this store.');
    return batchPage(opened.store, batch);
  },
});
