/** `DELETE {base_url}/api/v1/segments/{segmentId}`: remove a segment; its members are removed in the background. */

import { deleteSegment } from '#shared/domain/segments/manage-segments.ts';
import { webhooksReply } from '#shared/http/responses.ts';
import { httpRoute } from '#shared/http/route.ts';
import { SegmentPath } from '#shared/http/route-inputs.ts';
import { SEGMENT_ROUTE } from '#shared/http/segment-routes.ts';
import { manageSegmentDeps } from '#shared/wiring/segments.ts';

export const handler = httpRoute({
  path: SegmentPath,
  ...SEGMENT_ROUTE,
  handle: async ({ store, path }) =>
    webhooksReply.ok(await deleteSegment(manageSegmentDeps(), store.storeId, path.segmentId)),
});
