/** `POST {base_url}/api/v1/segments`: create a segment; its membership is built in the background. */

import { createSegment } from '#shared/domain/segments/manage-segments.ts';
import { parseSegmentCreateRequest } from '#shared/domain/segments/segment-schema.ts';
import { webhooksReply } from '#shared/http/responses.ts';
import { httpRoute } from '#shared/http/route.ts';
import { SEGMENT_ROUTE } from '#shared/http/segment-routes.ts';
import { manageSegmentDeps } from '#shared/wiring/segments.ts';

export const handler = httpRoute({
  ...SEGMENT_ROUTE,
  body: parseSegmentCreateRequest,
  handle: async ({ store, body }) => webhooksReply.ok(await createSegment(manageSegmentDeps(), store.storeId, body)),
});
