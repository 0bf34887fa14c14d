/**
 * Segment definition use cases (`/api/v1/segments`). Every call is scoped to the authenticated store: a segment id of
 * another store reads exactly like an unknown one (404), whatever the method.
 *
 * A create or a change of `conditions` starts a build of that revision (status `building`, then `ready`): the
 * definition and its state are written, then the build is queued. If the queue refuses, a new segment is removed
 * again (the caller retries a create that left nothing) and an edit answers 503 with its definition saved; the retried
 * `PUT` starts the build.
 */
import type { Clock } from '#shared/domain/clock.ts';
import { RevisionConflict } from '#shared/domain/repository.ts';
import { conflict, notFound, unavailable } from '#shared/errors.ts';
import { LIMITS } from '#shared/limits.ts';
import type { Segment, SegmentMember, SegmentState } from './model.ts';
import type { Page, SegmentMembers, SegmentQueue, SegmentRepository, SegmentStates } from './ports.ts';
import { newSegmentId, possibleSegmentId } from './segment-id.ts';
import type { SegmentDefinition, SegmentUpdateInput } from './segment-schema.ts';

export interface ManageSegmentDeps {
  readonly segments: SegmentRepository;
  readonly states: SegmentStates;
  readonly members: Pick<SegmentMembers, 'page'>;
  readonly queue: SegmentQueue;
  readonly clock: Clock;
}

/** What reading segments needs (the API's reads and the console's pages): no queue, no clock. */
export type SegmentReadDeps = Pick<ManageSegmentDeps, 'segments' | 'states' | 'members'>;

const seconds = (ms: number) => Math.floor(ms / 1000);

/** Members per page: one `Query` of at most 1,000 small items (well under DynamoDB's 1 MB page). */
export const SEGMENT_MEMBERS_PAGE = { default: 100, max: 1000 } as const;

/** The segment as the API shows it: its definition, its live count and build, times in epoch seconds. */
export const segmentRecord = (segment: Segment, state: SegmentState | undefined) => ({
  id: segment.id,
  name: segment.name,
  conditions: segment.conditions,
  status: state?.build.revision === segment.revision ? state.build.status : ('building' as const),
  count: Math.max(0, state?.members ?? 0),
  build: {
    scanned: state?.build.revision === segment.revision ? state.build.scanned : 0,
    startedAt: seconds(state?.build.startedAt ?? segment.updatedAt),
    ...(state?.build.revision === segment.revision && state.build.finishedAt !== undefined
      ? { finishedAt: seconds(state.build.finishedAt) }
      : {}),
  },
  createdAt: seconds(segment.createdAt),
  updatedAt: seconds(segment.updatedAt),
  revision: segment.revision,
});
export type SegmentRecord = ReturnType<typeof segmentRecord>;

const SEGMENT_NOT_FOUND = 'Segment not found';

/** A path id that cannot be a segment id is simply not found (never a validation error that would tell ids apart). */
const ownSegment = async (
  deps: Pick<ManageSegmentDeps, 'segments'>,
  storeId: string,
  segmentId: string | undefined,
) => {
  const segment = possibleSegmentId(segmentId) ? await deps.segments.get(storeId, segmentId) : undefined;
  if (!segment) throw notFound(SEGMENT_NOT_FOUND);
  return segment;
};

/** Whether the store has the segment (a segment flow must name one of its store's segments). */
export const segmentExists = async (
  deps: Pick<ManageSegmentDeps, 'segments'>,
  storeId: string,
  segmentId: string,
): Promise<boolean> => possibleSegmentId(segmentId) && (await deps.segments.get(storeId, segmentId)) !== undefined;

const startBuild = async (deps: ManageSegmentDeps, segment: Segment) => {
  await deps.states.startBuild(segment.storeId, segment.id, segment.revision, segment.updatedAt);
  await deps.queue.send({
    v: 1,
    type: 'build',
    storeId: segment.storeId,
    segmentId: segment.id,
    revision: segment.revision,
  });
};

/**
 * `POST /segments`. The per-store limit is checked before writing; two creates racing at the limit may both pass
 * (the limit is a guard rail, not a quota).
 */
export const createSegment = async (
  deps: ManageSegmentDeps,
  storeId: string,
  definition: SegmentDefinition,
): Promise<SegmentRecord> => {
  const existing = await deps.segments.list(storeId);
  if (existing.length >= LIMITS.segmentsPerStore) {
    throw conflict(`The store already has ${LIMITS.segmentsPerStore} segments, the most allowed; delete one first`);
  }
  const now = deps.clock.now();
  const segment: Segment = { ...definition, storeId, id: newSegmentId(), createdAt: now, updatedAt: now, revision: 1 };
  await deps.segments.save(segment, 0);
  try {
    await startBuild(deps, segment);
  } catch (error) {
    // Leave nothing half made: without its build the segment would stay `building` for ever.
    await deps.segments.delete(storeId, segment.id);
    throw unavailable('The segment could not be queued for its first build; nothing was saved, retry', error);
  }
  return segmentRecord(segment, await deps.states.get(storeId, segment.id));
};

export const listSegments = async (deps: Pick<SegmentReadDeps, 'segments' | 'states'>, storeId: string) => {
  const segments = (await deps.segments.list(storeId)).sort(
    (a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id),
  );
  const states = await deps.states.getMany(
    storeId,
    segments.map((segment) => segment.id),
  );
  const list = segments.map((segment) => segmentRecord(segment, states.get(segment.id)));
  return { list, total: list.length };
};

export const getSegment = async (
  deps: Pick<SegmentReadDeps, 'segments' | 'states'>,
  storeId: string,
  segmentId: string | undefined,
) => {
  const segment = await ownSegment(deps, storeId, segmentId);
  return segmentRecord(segment, await deps.states.get(storeId, segment.id));
};

/** The segment's existence in the store, checked before a `PUT` body is read (another store's: 404 even if invalid). */
export const assertOwnSegment = async (deps: ManageSegmentDeps, storeId: string, segmentId: string | undefined) => {
  await ownSegment(deps, storeId, segmentId);
};

const staleRevision = (given: number, current?: number) =>
  conflict(
    `The segment ${current === undefined ? 'is no longer' : `is at revision ${current}, not`} at revision ${given}: it was changed meanwhile; GET it and apply your change again`,
  );

/** `PUT /segments/{id}`: replaces name and conditions; a change of conditions builds the membership again. */
export const updateSegment = async (
  deps: ManageSegmentDeps,
  storeId: string,
  segmentId: string | undefined,
  { definition, revision }: SegmentUpdateInput,
): Promise<SegmentRecord> => {
  for (let attempt = 1; ; attempt++) {
    const current = await ownSegment(deps, storeId, segmentId);
    if (revision !== undefined && revision !== current.revision) throw staleRevision(revision, current.revision);
    const next: Segment = {
      ...current,
      ...definition,
      updatedAt: Math.max(deps.clock.now(), current.updatedAt),
      revision: current.revision + 1,
    };
    try {
      await deps.segments.save(next, current.revision);
    } catch (error) {
      if (!(error instanceof RevisionConflict)) throw error;
      if (revision !== undefined) throw staleRevision(revision);
      if (attempt >= 3) throw conflict('The segment is being changed by another request; retry');
      continue;
    }
    const state = await deps.states.get(storeId, next.id);
    const rebuild =
      JSON.stringify(current.conditions) !== JSON.stringify(next.conditions) ||
      state?.build.status !== 'ready' ||
      state.build.revision !== current.revision;
    if (!rebuild) {
      // Same conditions, same members: the finished build still holds for the new revision.
      await deps.states.carryBuild(storeId, next.id, current.revision, next.revision);
    } else {
      try {
        await startBuild(deps, next);
      } catch (error) {
        throw unavailable('The segment was saved but its build could not be queued; send the PUT again', error);
      }
    }
    return segmentRecord(next, await deps.states.get(storeId, next.id));
  }
};

/** `DELETE /segments/{id}`: the definition and count go at once; its members are removed in the background. */
export const deleteSegment = async (deps: ManageSegmentDeps, storeId: string, segmentId: string | undefined) => {
  const segment = await ownSegment(deps, storeId, segmentId);
  if (!(await deps.segments.delete(storeId, segment.id))) throw notFound(SEGMENT_NOT_FOUND);
  await deps.queue.send({ v: 1, type: 'purge', storeId, segmentId: segment.id });
  return true;
};

/** A member as the API shows it. */
const memberRecord = (member: SegmentMember) => ({
  customerId: member.customerId,
  ...(member.email ? { email: member.email } : {}),
  enteredAt: seconds(member.enteredAt),
});

/**
 * `GET /segments/{id}/members?limit=&cursor=`: members in customer id order. Paging is a `Query` on the segment's
 * member partition from the cursor, so it costs the page read whatever the segment's size, and a campaign can walk
 * all members with `nextCursor` until it is absent. Members who enter or leave meanwhile may or may not be seen.
 */
export const listSegmentMembers = async (
  deps: SegmentReadDeps,
  storeId: string,
  segmentId: string | undefined,
  page: { limit: number; cursor?: string | undefined },
): Promise<{ list: ReturnType<typeof memberRecord>[]; nextCursor?: string }> => {
  const segment = await ownSegment(deps, storeId, segmentId);
  const found: Page<SegmentMember> = await deps.members.page(storeId, segment.id, {
    limit: page.limit,
    ...(page.cursor ? { cursor: page.cursor } : {}),
  });
  return { list: found.items.map(memberRecord), ...(found.nextCursor ? { nextCursor: found.nextCursor } : {}) };
};
