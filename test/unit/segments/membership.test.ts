/** Membership kept by events and time, with in-memory ports. */
import { describe, expect, it } from 'vitest';
import type { IngestMessage } from '#shared/domain/ingest/model.ts';
import { segmentsAfterEngagement, segmentsAfterEvent } from '#shared/domain/segments/after-event.ts';
import { handleSegmentMessage } from '#shared/domain/segments/build.ts';
import { DAY_MS } from '#shared/domain/segments/facts.ts';
import { refreshContact, segmentTimerName } from '#shared/domain/segments/membership.ts';
import { contactOf, contactsByEmail, SEGMENT_STORE, segmentFakes, segmentOf } from '#test/support/memory/segments.ts';

const VIP = { match: 'all', conditions: [{ field: 'contact.tags', op: 'contains', value: 'vip' }] } as const;
const RECENT = {
  match: 'all',
  conditions: [{ field: 'activity.days_since_last_order', op: 'less_than', value: 30 }],
} as const;

const ready = (fakes: ReturnType<typeof segmentFakes>, id: string) =>
  fakes.states.set(`${SEGMENT_STORE}\n${id}`, {
    members: 0,
    build: { revision: 1, status: 'ready', scanned: 0, startedAt: 0, finishedAt: 0 },
  });

const withSegment = (fakes: ReturnType<typeof segmentFakes>, id: string, conditions: typeof VIP | typeof RECENT) => {
  fakes.segments.set(`${SEGMENT_STORE}\n${id}`, segmentOf(id, conditions));
  ready(fakes, id);
};

const cause = (id: string, fire = true) => ({ id, trigger: { sourceId: id }, fire });
const countOf = (fakes: ReturnType<typeof segmentFakes>, id: string) =>
  fakes.states.get(`${SEGMENT_STORE}\n${id}`)?.members;

describe('refreshContact', () => {
  it('enters a contact that now matches, fires segment_entered once, and counts it once', async () => {
    const fakes = segmentFakes();
    withSegment(fakes, 'seg_vip', VIP);
    withSegment(fakes, 'seg_recent', RECENT);
    fakes.contacts.set(`${SEGMENT_STORE}\nc1`, contactOf('c1', { platformTags: ['vip'] }));

    const first = await refreshContact(fakes.deps, SEGMENT_STORE, 'c1', cause('event#s1'));
    expect(first).toEqual({ entered: ['seg_vip'], exited: [] });
    expect(fakes.fired).toEqual([
      expect.objectContaining({
        id: 'segment#seg_vip#c1#in#event#s1',
        kind: 'segment_entered',
        subject: { type: 'segment', id: 'seg_vip' },
        contact: { customerId: 'c1', email: 'c1@example.com' },
      }),
    ]);
    expect(fakes.members('st_segments_unit', 'seg_vip').get('c1')).toMatchObject({ email: 'c1@example.com' });
    expect(countOf(fakes, 'seg_vip')).toBe(1);

    // Evaluated again with nothing changed: nothing written, nothing fired, nothing counted.
    expect(await refreshContact(fakes.deps, SEGMENT_STORE, 'c1', cause('event#s2'))).toEqual({
      entered: [],
      exited: [],
    });
    expect(fakes.fired).toHaveLength(1);
    expect(countOf(fakes, 'seg_vip')).toBe(1);
  });

  it('lets a contact out when it stops matching, with segment_exited; a deleted contact leaves every segment', async () => {
    const fakes = segmentFakes();
    withSegment(fakes, 'seg_vip', VIP);
    fakes.contacts.set(`${SEGMENT_STORE}\nc1`, contactOf('c1', { platformTags: ['vip'] }));
    await refreshContact(fakes.deps, SEGMENT_STORE, 'c1', cause('event#s1'));
    fakes.contacts.set(`${SEGMENT_STORE}\nc1`, contactOf('c1', { platformTags: [] }));
    expect(await refreshContact(fakes.deps, SEGMENT_STORE, 'c1', cause('event#s2'))).toEqual({
      entered: [],
      exited: ['seg_vip'],
    });
    expect(fakes.fired.map((t) => t.id)).toEqual(['segment#seg_vip#c1#in#event#s1', 'segment#seg_vip#c1#out#event#s2']);
    expect(countOf(fakes, 'seg_vip')).toBe(0);

    fakes.contacts.set(`${SEGMENT_STORE}\nc2`, contactOf('c2', { platformTags: ['vip'] }));
    await refreshContact(fakes.deps, SEGMENT_STORE, 'c2', cause('event#s3'));
    fakes.contacts.delete(`${SEGMENT_STORE}\nc2`);
    expect((await refreshContact(fakes.deps, SEGMENT_STORE, 'c2', cause('event#s4'))).exited).toEqual(['seg_vip']);
  });

  it('fires nothing for ignore_flow events and for a segment still building, but keeps membership current', async () => {
    const fakes = segmentFakes();
    withSegment(fakes, 'seg_vip', VIP);
    fakes.segments.set(`${SEGMENT_STORE}\nseg_new`, segmentOf('seg_new', VIP));
    fakes.states.set(`${SEGMENT_STORE}\nseg_new`, {
      members: 0,
      build: { revision: 1, status: 'building', scanned: 0, startedAt: 0 },
    });
    fakes.contacts.set(`${SEGMENT_STORE}\nc1`, contactOf('c1', { platformTags: ['vip'] }));
    fakes.contacts.set(`${SEGMENT_STORE}\nc2`, contactOf('c2', { platformTags: ['vip'] }));

    await refreshContact(fakes.deps, SEGMENT_STORE, 'c1', cause('event#s1', false));
    expect(fakes.fired).toEqual([]);
    await refreshContact(fakes.deps, SEGMENT_STORE, 'c2', cause('event#s2'));
    expect(fakes.fired.map((t) => t.subject.id)).toEqual(['seg_vip']);
    expect([...fakes.members(SEGMENT_STORE, 'seg_new').keys()].sort()).toEqual(['c1', 'c2']);
  });

  it('starts no flow for a sign-up through the publishable key, but keeps its membership; the store key’s starts one', async () => {
    const fakes = segmentFakes();
    withSegment(fakes, 'seg_vip', VIP);
    fakes.contacts.set(`${SEGMENT_STORE}\nc1`, contactOf('c1', { platformTags: ['vip'] }));
    fakes.contacts.set(`${SEGMENT_STORE}\nc2`, contactOf('c2', { platformTags: ['vip'] }));
    const signUp = (sourceId: string, key?: 'publishable') =>
      ({
        v: 1,
        storeId: SEGMENT_STORE,
        sourceId,
        interface: 'headless',
        endpoint: 'customers/create',
        data: {},
        acceptedAt: fakes.clock.now,
        ...(key ? { key } : {}),
      }) as IngestMessage;
    const deps = { ...fakes.deps, contacts: contactsByEmail(fakes.contacts) };
    const applied = { applied: 'customer', triggers: [] };

    await segmentsAfterEvent(deps, signUp('s1', 'publishable'), { ...applied, contact: { customerId: 'c1' } });
    expect(fakes.members(SEGMENT_STORE, 'seg_vip').has('c1')).toBe(true);
    expect(fakes.fired).toEqual([]);
    await segmentsAfterEvent(deps, signUp('s2'), { ...applied, contact: { customerId: 'c2' } });
    expect(fakes.fired.map((t) => t.contact.customerId)).toEqual(['c2']);
  });

  it('schedules the contact again for the moment its 30-day window closes, and lets it out then', async () => {
    const fakes = segmentFakes();
    withSegment(fakes, 'seg_recent', RECENT);
    fakes.contacts.set(`${SEGMENT_STORE}\nc1`, contactOf('c1'));
    const message: IngestMessage = {
      v: 1,
      storeId: SEGMENT_STORE,
      sourceId: 's1',
      interface: 'general',
      endpoint: 'orders/paid',
      data: { id: 'o1' },
      acceptedAt: fakes.clock.now,
    } as unknown as IngestMessage;
    const orderedAt = fakes.clock.now;
    const outcome = await segmentsAfterEvent({ ...fakes.deps, contacts: contactsByEmail(fakes.contacts) }, message, {
      applied: 'order',
      triggers: [],
      contact: { customerId: 'c1' },
      order: { id: 'o1', status: 'paid', details: { total_price: '20' } },
    });
    expect(outcome.c1).toEqual({ entered: ['seg_recent'], exited: [], recheckAt: orderedAt + 30 * DAY_MS });
    expect(fakes.timers).toEqual([
      {
        name: segmentTimerName(SEGMENT_STORE, 'c1'),
        at: orderedAt + 30 * DAY_MS,
        payload: { v: 1, kind: 'segment', storeId: SEGMENT_STORE, customerId: 'c1', at: orderedAt + 30 * DAY_MS },
      },
    ]);

    // The timer fires (as early as the local clock advance makes it): evaluated as of the flip, the contact leaves.
    await handleSegmentMessage(fakes.deps, {
      v: 1,
      type: 'contact',
      storeId: SEGMENT_STORE,
      customerId: 'c1',
      at: orderedAt + 30 * DAY_MS,
    });
    expect(fakes.members(SEGMENT_STORE, 'seg_recent').has('c1')).toBe(false);
    expect(fakes.fired.map((t) => t.kind)).toEqual(['segment_entered', 'segment_exited']);
  });

  it('notes a first open on every contact of the address and lets them into an openers segment', async () => {
    const fakes = segmentFakes();
    const OPENERS = {
      match: 'all',
      conditions: [{ field: 'activity.days_since_last_open', op: 'less_than', value: 90 }],
    } as const;
    fakes.segments.set(`${SEGMENT_STORE}\nseg_open`, segmentOf('seg_open', OPENERS));
    ready(fakes, 'seg_open');
    fakes.contacts.set(`${SEGMENT_STORE}\nc1`, contactOf('c1', { email: 'Ann@Example.com' }));
    fakes.contacts.set(`${SEGMENT_STORE}\nc2`, contactOf('c2', { email: 'ann@example.com' }));
    const outcome = await segmentsAfterEngagement(
      { ...fakes.deps, contacts: contactsByEmail(fakes.contacts) },
      SEGMENT_STORE,
      { email: 'ann@example.com', at: fakes.clock.now, messageId: 'm1', kind: 'open' },
    );
    expect(Object.keys(outcome).sort()).toEqual(['c1', 'c2']);
    expect([...fakes.members(SEGMENT_STORE, 'seg_open').keys()].sort()).toEqual(['c1', 'c2']);
  });
});

describe('builds', () => {
  it('evaluates every contact a page at a time, fires nothing, and continues in a new message when short of time', async () => {
    const fakes = segmentFakes();
    fakes.segments.set(`${SEGMENT_STORE}\nseg_vip`, segmentOf('seg_vip', VIP));
    await fakes.deps.states.startBuild(SEGMENT_STORE, 'seg_vip', 1, 0);
    for (let i = 0; i < 150; i++) {
      fakes.contacts.set(`${SEGMENT_STORE}\nc${i}`, contactOf(`c${i}`, { platformTags: i % 3 === 0 ? ['vip'] : [] }));
    }
    const message = { v: 1, type: 'build', storeId: SEGMENT_STORE, segmentId: 'seg_vip', revision: 1 } as const;
    const first = await handleSegmentMessage(fakes.deps, message, () => false);
    expect(first).toMatchObject({ continued: true, scanned: 100 });
    expect(fakes.queued).toEqual([{ ...message, cursor: '100' }]);
    expect(fakes.states.get(`${SEGMENT_STORE}\nseg_vip`)?.build).toMatchObject({ status: 'building', scanned: 100 });

    const second = await handleSegmentMessage(fakes.deps, fakes.queued[0] as typeof message, () => false);
    expect(second).toMatchObject({ ready: true, scanned: 50 });
    expect(fakes.states.get(`${SEGMENT_STORE}\nseg_vip`)).toMatchObject({
      members: 50,
      build: { status: 'ready', scanned: 150 },
    });
    expect(fakes.fired).toEqual([]);
  });

  it('stops a build of a revision the segment has left behind', async () => {
    const fakes = segmentFakes();
    fakes.segments.set(`${SEGMENT_STORE}\nseg_vip`, segmentOf('seg_vip', VIP, { revision: 2 }));
    fakes.contacts.set(`${SEGMENT_STORE}\nc1`, contactOf('c1', { platformTags: ['vip'] }));
    const outcome = await handleSegmentMessage(fakes.deps, {
      v: 1,
      type: 'build',
      storeId: SEGMENT_STORE,
      segmentId: 'seg_vip',
      revision: 1,
    });
    expect(outcome).toMatchObject({ stale: true, scanned: 0 });
    expect(fakes.members(SEGMENT_STORE, 'seg_vip').size).toBe(0);
  });

  it('purges a deleted segment’s members page by page, continuing when short of time', async () => {
    const fakes = segmentFakes();
    for (const c of ['a', 'b', 'c']) fakes.members(SEGMENT_STORE, 'seg_gone').set(c, { customerId: c, enteredAt: 0 });
    const message = { v: 1, type: 'purge', storeId: SEGMENT_STORE, segmentId: 'seg_gone' } as const;
    expect(await handleSegmentMessage(fakes.deps, message, () => false)).toMatchObject({ purged: 2, continued: true });
    expect(await handleSegmentMessage(fakes.deps, message)).toMatchObject({ purged: 1 });
    expect(fakes.members(SEGMENT_STORE, 'seg_gone').size).toBe(0);
  });
});
