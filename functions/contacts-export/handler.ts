/** `GET {front_url}/api/v1/audience`: the store's contacts, page by page (spec "Contact export"). */

import { exportContacts } from '#shared/domain/contacts/export-contacts.ts';
import { exportReply } from '#shared/http/responses.ts';
import { httpRoute } from '#shared/http/route.ts';
import { ExportQuery } from '#shared/http/route-inputs.ts';
import { LIMITS } from '#shared/limits.ts';
import { exportDeps } from '#shared/wiring/contacts.ts';

export const handler = httpRoute({
  query: ExportQuery,
  api: 'export',
  rateLimit: { bucket: 'export', perSecond: LIMITS.exportPerSecond },
  handle: async ({ store, query }) => {
    const deps = exportDeps();
    const page = await exportContacts(deps, store.storeId, query);
    return exportReply.page(page, (json) => deps.largePages.publish(store.storeId, json));
  },
});
