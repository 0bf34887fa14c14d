/**
 * The console's segment pages: the store's segments with their live counts, and one segment with a page of
 * its members. The reads are the segments API's (`listSegments`, `getSegment`, `listSegmentMembers`).
 */
import {
  getSegment,
  listSegmentMembers,
  listSegments,
  type SegmentReadDeps,
} from '#shared/domain/segments/manage-segments.ts';

/** Members shown on a segment's page ("More members" for the next page). */
export const MEMBERS_SHOWN = 50;

export const segmentsView = (deps: SegmentReadDeps, storeId: string) => listSegments(deps, storeId);

/** One segment and a page of its members from `cursor`; another store's or an unknown id throws the API's 404. */
export const segmentView = async (
  deps: SegmentReadDeps,
  storeId: string,
  segmentId: string,
  cursor: string | undefined,
) => {
  const segment = await getSegment(deps, storeId, segmentId);
  const members = await listSegmentMembers(deps, storeId, segment.id, { limit: MEMBERS_SHOWN, cursor });
  return { segment, members };
};
export type SegmentView = Awaited<ReturnType<typeof segmentView>>;
