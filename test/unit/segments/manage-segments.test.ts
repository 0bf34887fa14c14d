/** Segment definition use cases: limits, isolation, revisions, and nothing half written. */
import { describe, expect, it } from 'vitest';
import {
  createSegment,
  deleteSegment,
  getSegment,
  listSegmentMembers,
  updateSegment,
} from '#shared/domain/segments/manage-segments.ts';
import { LIMITS } from '#shared/limits.ts';
import { SEGMENT_STORE, segmentFakes } from '#test/support/memory/segments.ts';

const definition = (value = 'vip') => ({
  name: 'VIP',
  conditions: { match: 'all' as const, conditions: [{ field: 'contact.tags', op: 'contains' as const, value }] },
});

describe('segment management', () => {
  it('creates a segment building, queues its build, and answers the live count', async () => {
    const fakes = segmentFakes();
    const created = await createSegment(fakes.deps, SEGMENT_STORE, definition());
    expect(created).toMatchObject({ status: 'building', count: 0, revision: 1, build: { scanned: 0 } });
    expect(fakes.queued).toEqual([{ v: 1, type: 'build', storeId: SEGMENT_STORE, segmentId: created.id, revision: 1 }]);
    await fakes.deps.states.finishBuild(SEGMENT_STORE, created.id, 1, fakes.clock.now);
    await fakes.deps.members.enter(SEGMENT_STORE, created.id, { customerId: 'c1', enteredAt: fakes.clock.now });
    expect(await getSegment(fakes.deps, SEGMENT_STORE, created.id)).toMatchObject({ status: 'ready', count: 1 });
  });

  it('leaves nothing behind when the build cannot be queued (503, retry)', async () => {
    const fakes = segmentFakes();
    fakes.counters.queueFailures = 1;
    await expect(createSegment(fakes.deps, SEGMENT_STORE, definition())).rejects.toMatchObject({ kind: 'unavailable' });
    expect(await fakes.deps.segments.list(SEGMENT_STORE)).toEqual([]);
  });

  it(`refuses the ${LIMITS.segmentsPerStore + 1}th segment of a store with 409`, async () => {
    const fakes = segmentFakes();
    for (let i = 0; i < LIMITS.segmentsPerStore; i++) await createSegment(fakes.deps, SEGMENT_STORE, definition());
    await expect(createSegment(fakes.deps, SEGMENT_STORE, definition())).rejects.toMatchObject({
      kind: 'conflict',
      message: `The store already has ${LIMITS.segmentsPerStore} segments, the most allowed; delete one first`,
    });
    // Another store is not held back by it.
    await expect(createSegment(fakes.deps, 'st_other', definition())).resolves.toMatchObject({ revision: 1 });
  });

  it("answers another store's segment, or an id that cannot be one, as not found", async () => {
    const fakes = segmentFakes();
    const created = await createSegment(fakes.deps, SEGMENT_STORE, definition());
    for (const [store, id] of [
      ['st_other', created.id],
      [SEGMENT_STORE, 'not-a-segment'],
      [SEGMENT_STORE, undefined],
    ] as const) {
      await expect(getSegment(fakes.deps, store, id)).rejects.toMatchObject({ kind: 'not_found' });
      await expect(updateSegment(fakes.deps, store, id, { definition: definition() })).rejects.toMatchObject({
        kind: 'not_found',
      });
      await expect(deleteSegment(fakes.deps, store, id)).rejects.toMatchObject({ kind: 'not_found' });
      await expect(listSegmentMembers(fakes.deps, store, id, { limit: 10 })).rejects.toMatchObject({
        kind: 'not_found',
      });
    }
  });

  it('rebuilds when the conditions change, not when only the name does; refuses a stale revision with 409', async () => {
    const fakes = segmentFakes();
    const created = await createSegment(fakes.deps, SEGMENT_STORE, definition());
    await fakes.deps.states.finishBuild(SEGMENT_STORE, created.id, 1, fakes.clock.now);
    fakes.queued.length = 0;

    const renamed = await updateSegment(fakes.deps, SEGMENT_STORE, created.id, {
      definition: { ...definition(), name: 'Very important' },
    });
    expect(renamed).toMatchObject({ name: 'Very important', revision: 2, status: 'ready' });
    expect(renamed.build.finishedAt).toBeDefined();
    expect(fakes.queued).toEqual([]);

    const changed = await updateSegment(fakes.deps, SEGMENT_STORE, created.id, {
      definition: definition('gold'),
      revision: 2,
    });
    expect(changed).toMatchObject({ revision: 3, status: 'building' });
    expect(fakes.queued).toEqual([{ v: 1, type: 'build', storeId: SEGMENT_STORE, segmentId: created.id, revision: 3 }]);
    await expect(
      updateSegment(fakes.deps, SEGMENT_STORE, created.id, { definition: definition(), revision: 2 }),
    ).rejects.toMatchObject({ kind: 'conflict' });
  });

  it('deletes the definition at once and queues the purge of its members', async () => {
    const fakes = segmentFakes();
    const created = await createSegment(fakes.deps, SEGMENT_STORE, definition());
    expect(await deleteSegment(fakes.deps, SEGMENT_STORE, created.id)).toBe(true);
    expect(fakes.queued.at(-1)).toEqual({ v: 1, type: 'purge', storeId: SEGMENT_STORE, segmentId: created.id });
    await expect(getSegment(fakes.deps, SEGMENT_STORE, created.id)).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('pages members in customer id order with a cursor until the last page', async () => {
    const fakes = segmentFakes();
    const created = await createSegment(fakes.deps, SEGMENT_STORE, definition());
    for (const c of ['c3', 'c1', 'c2']) {
      await fakes.deps.members.enter(SEGMENT_STORE, created.id, {
        customerId: c,
        email: `${c}@x.example`,
        enteredAt: 5_000,
      });
    }
    const first = await listSegmentMembers(fakes.deps, SEGMENT_STORE, created.id, { limit: 2 });
    expect(first.list).toEqual([
      { customerId: 'c1', email: 'c1@x.example', enteredAt: 5 },
      { customerId: 'c2', email: 'c2@x.example', enteredAt: 5 },
    ]);
    const last = await listSegmentMembers(fakes.deps, SEGMENT_STORE, created.id, {
      limit: 2,
      cursor: first.nextCursor,
    });
    expect(last).toEqual({ list: [{ customerId: 'c3', email: 'c3@x.example', enteredAt: 5 }] });
  });
});
