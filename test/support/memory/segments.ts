/** In-memory doubles of the segments area's ports (`shared/domain/segments/ports.ts`), for unit tests. */
import type { Customer } from '#shared/domain/customers/model.ts';
import type { FlowTrigger } from '#shared/domain/flows/trigger.ts';
import { RevisionConflict } from '#shared/domain/repository.ts';
import type { SegmentWorkerDeps } from '#shared/domain/segments/build.ts';
import type { ManageSegmentDeps } from '#shared/domain/segments/manage-segments.ts';
import {
  type ContactStats,
  emptyStats,
  type OrderFact,
  type Segment,
  type SegmentMember,
  type SegmentState,
  withOrder,
} from '#shared/domain/segments/model.ts';
import type { ContactStatsRepository, SegmentMessage } from '#shared/domain/segments/ports.ts';
import type { Timer } from '#shared/domain/timers/model.ts';
import { customerOf } from './flow-engine.ts';

export const SEGMENT_STORE = 'st_segments_unit';

export const segmentOf = (id: string, conditions: Segment['conditions'], extra: Partial<Segment> = {}): Segment => ({
  storeId: SEGMENT_STORE,
  id,
  name: id,
  conditions,
  createdAt: 1,
  updatedAt: 1,
  revision: 1,
  ...extra,
});

/** A contact of the segments' store, with an address of its own (`<originId>@example.com`). */
export const contactOf = (originId: string, extra: Partial<Customer> = {}): Customer =>
  customerOf(originId, { storeId: SEGMENT_STORE, email: `${originId}@example.com`, ...extra });

const copy = <T>(value: T): T => structuredClone(value);

/**
 * Every port of the segments area over maps, and what the use cases did: triggers fired, timers set, messages
 * queued. `clock.now` is the time the use cases see; `queueFailures` makes that many queue sends throw.
 */
export const segmentFakes = () => {
  const segments = new Map<string, Segment>();
  const states = new Map<string, SegmentState>();
  const members = new Map<string, Map<string, SegmentMember>>();
  const stats = new Map<string, ContactStats>();
  const contacts = new Map<string, Customer>();
  const fired: FlowTrigger[] = [];
  const timers: Timer[] = [];
  const queued: SegmentMessage[] = [];
  const clock = { now: Date.UTC(2026, 0, 1) };
  const counters = { queueFailures: 0 };
  const key = (storeId: string, id: string) => `${storeId}\n${id}`;
  const membersOf = (storeId: string, segmentId: string) => {
    const found = members.get(key(storeId, segmentId)) ?? new Map<string, SegmentMember>();
    members.set(key(storeId, segmentId), found);
    return found;
  };
  const count = (storeId: string, segmentId: string, delta: number) => {
    const state = states.get(key(storeId, segmentId));
    if (state) states.set(key(storeId, segmentId), { ...state, members: state.members + delta });
  };
  const page = <T>(items: T[], limit: number, cursor?: string) => {
    const start = cursor ? Number(cursor) : 0;
    const slice = items.slice(start, start + limit);
    return start + limit < items.length ? { items: slice, nextCursor: String(start + limit) } : { items: slice };
  };

  const deps: Omit<SegmentWorkerDeps, 'stats'> & ManageSegmentDeps & { stats: ContactStatsRepository } = {
    segments: {
      get: async (storeId, id) => copy(segments.get(key(storeId, id))),
      list: async (storeId) =>
        [...segments.values()].filter((s) => s.storeId === storeId).sort((a, b) => a.id.localeCompare(b.id)),
      async save(segment, expected) {
        const current = segments.get(key(segment.storeId, segment.id));
        if ((current?.revision ?? 0) !== expected) throw new RevisionConflict(`segment ${segment.id}`);
        segments.set(key(segment.storeId, segment.id), copy(segment));
      },
      async delete(storeId, id) {
        states.delete(key(storeId, id));
        return segments.delete(key(storeId, id));
      },
    },
    states: {
      get: async (storeId, id) => copy(states.get(key(storeId, id))),
      async getMany(storeId, ids) {
        return new Map(
          ids.flatMap((id) =>
            states.has(key(storeId, id)) ? [[id, copy(states.get(key(storeId, id)) as SegmentState)]] : [],
          ),
        );
      },
      async startBuild(storeId, id, revision, at) {
        const state = states.get(key(storeId, id));
        if (state && state.build.revision > revision) return;
        states.set(key(storeId, id), {
          members: state?.members ?? 0,
          build: { revision, status: 'building', scanned: 0, startedAt: at },
        });
      },
      async progress(storeId, id, revision, scanned) {
        const state = states.get(key(storeId, id));
        if (state?.build.revision !== revision) return;
        states.set(key(storeId, id), { ...state, build: { ...state.build, scanned: state.build.scanned + scanned } });
      },
      async carryBuild(storeId, id, from, to) {
        const state = states.get(key(storeId, id));
        if (state?.build.revision !== from) return;
        states.set(key(storeId, id), { ...state, build: { ...state.build, revision: to } });
      },
      async finishBuild(storeId, id, revision, at) {
        const state = states.get(key(storeId, id));
        if (state?.build.revision !== revision) return;
        states.set(key(storeId, id), { ...state, build: { ...state.build, status: 'ready', finishedAt: at } });
      },
    },
    members: {
      memberOf: async (storeId, ids, customerId) => new Set(ids.filter((id) => membersOf(storeId, id).has(customerId))),
      membersAmong: async (storeId, id, customerIds) =>
        new Set(customerIds.filter((c) => membersOf(storeId, id).has(c))),
      async enter(storeId, id, member) {
        if (membersOf(storeId, id).has(member.customerId)) return false;
        membersOf(storeId, id).set(member.customerId, copy(member));
        count(storeId, id, 1);
        return true;
      },
      async exit(storeId, id, customerId) {
        if (!membersOf(storeId, id).delete(customerId)) return false;
        count(storeId, id, -1);
        return true;
      },
      page: async (storeId, id, { limit, cursor }) =>
        page(
          [...membersOf(storeId, id).values()].sort((a, b) => a.customerId.localeCompare(b.customerId)),
          limit,
          cursor,
        ),
      async purgePage(storeId, id) {
        const all = membersOf(storeId, id);
        const doomed = [...all.keys()].slice(0, 2);
        for (const customerId of doomed) all.delete(customerId);
        return doomed.length;
      },
    },
    stats: {
      get: async (storeId, customerId) => copy(stats.get(key(storeId, customerId))),
      getMany: async (storeId, ids) =>
        new Map(
          ids.flatMap((id) =>
            stats.has(key(storeId, id)) ? [[id, copy(stats.get(key(storeId, id)) as ContactStats)]] : [],
          ),
        ),
      async recordOrder(storeId, customerId, orderId, fact: (firstSeen?: number) => OrderFact) {
        const before = stats.get(key(storeId, customerId)) ?? emptyStats(storeId, customerId);
        const next = withOrder(before, orderId, fact(before.orders[orderId]?.at));
        stats.set(key(storeId, customerId), { ...next, revision: before.revision + 1 });
      },
      async recordEngagement(storeId, customerId, kind, at) {
        const before = stats.get(key(storeId, customerId)) ?? emptyStats(storeId, customerId);
        const field = kind === 'open' ? 'lastOpenAt' : 'lastClickAt';
        if ((before[field] ?? 0) >= at) return;
        stats.set(key(storeId, customerId), { ...before, [field]: at, revision: before.revision + 1 });
      },
    },
    customers: { get: async (storeId, originId) => copy(contacts.get(key(storeId, originId))) },
    contacts: {
      page: async (storeId, { limit, cursor }) =>
        page(
          [...contacts.values()].filter((c) => c.storeId === storeId),
          limit,
          cursor,
        ),
    },
    triggers: {
      async fire(trigger) {
        if (!fired.some((t) => t.id === trigger.id)) fired.push(copy(trigger));
      },
    },
    timers: {
      async set(timer) {
        timers.push(copy(timer));
      },
    },
    queue: {
      async send(message) {
        if (counters.queueFailures > 0) {
          counters.queueFailures--;
          throw new Error('queue unavailable');
        }
        queued.push(copy(message));
      },
    },
    clock: { now: () => clock.now },
  };
  return { deps, segments, states, members: membersOf, stats, contacts, fired, timers, queued, clock, counters };
};

/** Contacts by address over the fakes' contacts (the email-events step). */
export const contactsByEmail = (contacts: Map<string, Customer>) => ({
  find: async (storeId: string, email: string) =>
    [...contacts.values()].filter((c) => c.storeId === storeId && c.email?.toLowerCase() === email.toLowerCase()),
});
