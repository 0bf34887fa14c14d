/** `GET {base_url}/api/v1/segments/{segmentId}`: one segment, its live count and its build's progress. */

import { getSegment } from '#shared/domain/segments/manage-segments.ts';
import { webhooksReply } from '#shared/http/responses.ts';
import { httpRoute } from '#shared/http/route.ts';
import { SegmentPath } from '#shared/http/route-inputs.ts';
import { SEGMENT_ROUTE } from '#shared/http/segment-routes.ts';
import { manageSegmentDeps } from '#shared/wiring/segments.ts';

export const handler = httpRoute({
  path: SegmentPath,
  ...SEGMENT_ROUTE,
  handle: async ({ store, path }) =>
    webhooksReply.ok(await getSegment(manageSegmentDeps(), store.storeId, path.segmentId)),
});
