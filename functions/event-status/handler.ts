/** `GET {base_url}/api/v1/events?source_id=`: one of the store's events, accepted or failed (and why). */

import { getEventStatus } from '#shared/domain/ingest/event-status.ts';
import { webhooksReply } from '#shared/http/responses.ts';
import { httpRoute } from '#shared/http/route.ts';
import { EventStatusQuery } from '#shared/http/route-inputs.ts';
import { LIMITS } from '#shared/limits.ts';
import { eventStatusDeps } from '#shared/wiring/ingest.ts';

export const handler = httpRoute({
  query: EventStatusQuery,
  api: 'webhooks',
  rateLimit: { bucket: 'event-status', perSecond: LIMITS.eventStatusPerSecond },
  handle: async ({ store, query }) =>
    webhooksReply.ok(await getEventStatus(eventStatusDeps(), store.storeId, query.source_id)),
});
