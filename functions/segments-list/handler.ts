/** `GET {base_url}/api/v1/segments`: the store's segments with their live counts, `{list, total}`, oldest first. */

import { listSegments } from '#shared/domain/segments/manage-segments.ts';
import { webhooksReply } from '#shared/http/responses.ts';
import { httpRoute } from '#shared/http/route.ts';
import { SEGMENT_ROUTE } from '#shared/http/segment-routes.ts';
import { manageSegmentDeps } from '#shared/wiring/segments.ts';

export const handler = httpRoute({
  ...SEGMENT_ROUTE,
  handle: async ({ store }) => webhooksReply.ok(await listSegments(manageSegmentDeps(), store.storeId)),
});
