/** `GET {base_url}/api/v1/segments/{segmentId}/members?limit=&cursor=`: a page of members, in customer id order. */

import { listSegmentMembers } from '#shared/domain/segments/manage-segments.ts';
import { webhooksReply } from '#shared/http/responses.ts';
import { httpRoute } from '#shared/http/route.ts';
import { SegmentMembersQuery, SegmentPath } from '#shared/http/route-inputs.ts';
import { SEGMENT_ROUTE } from '#shared/http/segment-routes.ts';
import { manageSegmentDeps } from '#shared/wiring/segments.ts';

export const handler = httpRoute({
  path: SegmentPath,
  query: SegmentMembersQuery,
  ...SEGMENT_ROUTE,
  handle: async ({ store, path, query }) =>
    webhooksReply.ok(
      await listSegmentMembers(manageSegmentDeps(), store.storeId, path.segmentId, {
        limit: query.limit,
        cursor: query.cursor,
      }),
    ),
});
