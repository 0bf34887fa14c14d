/** Segment ids: `seg_` and 20 base62 characters, safe in URLs, SES tags and trigger ids. */
import { randomBase62 } from '#shared/domain/ids.ts';

export const newSegmentId = (): string => `seg_${randomBase62(20)}`;

/** Whether a path id could name a segment at all: one that cannot is simply not found (never a validation error). */
export const possibleSegmentId = (id: string | undefined): id is string =>
  id !== undefined && /^seg_[A-Za-z0-9]{1,60}$/.test(id);
