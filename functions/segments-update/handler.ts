/** `PUT {base_url}/api/v1/segments/{segmentId}`: replace name and conditions (`revision` for optimistic concurrency). */

import { assertOwnSegment, updateSegment } from '#shared/domain/segments/manage-segments.ts';
import { parseSegmentUpdateRequest } from '#shared/domain/segments/segment-schema.ts';
import { webhooksReply } from '#shared/http/responses.ts';
import { httpRoute } from '#shared/http/route.ts';
import { SegmentPath } from '#shared/http/route-inputs.ts';
import { SEGMENT_ROUTE } from '#shared/http/segment-routes.ts';
import { manageSegmentDeps } from '#shared/wiring/segments.ts';

export const handler = httpRoute({
  path: SegmentPath,
  ...SEGMENT_ROUTE,
  // Another store's segment answers 404 even to an invalid body: the segment is looked up before the body is read.
  found: ({ store, path }) => assertOwnSegment(manageSegmentDeps(), store.storeId, path.segmentId),
  body: parseSegmentUpdateRequest,
  handle: async ({ store, body, path }) =>
    webhooksReply.ok(await updateSegment(manageSegmentDeps(), store.storeId, path.segmentId, body)),
});
