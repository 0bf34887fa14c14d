/**
 * The background passes of the segments queue: a new or edited segment's initial membership (a build), a deleted
 * segment's members removed (a purge), and a contact evaluated again when a time window flips.
 *
 * A build reads the store's contacts a page at a time by `Query` on their partition (never a Scan), evaluates each
 * against the segment, writes entries and exits as the event path does (conditional, each moving the live count), but
 * fires no trigger: a contact that already matched when the segment was made did not just enter it. Progress
 * (`scanned`) is added per page; the pass watches its remaining time and, running short, queues its continuation
 * from the page it reached, as the import worker does. A build of a revision the segment has left behind stops.
 */
import type { Clock } from '#shared/domain/clock.ts';
import { evaluate } from '#shared/domain/flows/conditions.ts';
import { segmentFacts } from './facts.ts';
import { type MembershipDeps, refreshContact, scheduleRecheck } from './membership.ts';
import type {
  ContactStatsRepository,
  SegmentMembers,
  SegmentMessage,
  SegmentQueue,
  SegmentRepository,
  SegmentStates,
  StoreContacts,
} from './ports.ts';

/** Contacts per page of a build: one batch read of their stats and one of their memberships each. */
export const BUILD_PAGE = 100;

export interface SegmentWorkerDeps extends MembershipDeps {
  readonly segments: Pick<SegmentRepository, 'list' | 'get'>;
  readonly states: Pick<SegmentStates, 'getMany' | 'progress' | 'finishBuild'>;
  readonly stats: Pick<ContactStatsRepository, 'get' | 'getMany'>;
  readonly members: Pick<SegmentMembers, 'memberOf' | 'membersAmong' | 'enter' | 'exit' | 'purgePage'>;
  readonly contacts: StoreContacts;
  readonly queue: SegmentQueue;
  readonly clock: Clock;
}

type BuildMessage = Extract<SegmentMessage, { type: 'build' }>;

const build = async (deps: SegmentWorkerDeps, message: BuildMessage, hasTime: () => boolean) => {
  const { storeId, segmentId, revision } = message;
  let cursor = message.cursor;
  let scanned = 0;
  let changed = 0;
  for (;;) {
    // Read each page: an edit (a newer revision) or a delete stops this pass at once.
    const segment = await deps.segments.get(storeId, segmentId);
    if (segment?.revision !== revision) return { segmentId, stale: true, scanned, changed };
    const page = await deps.contacts.page(storeId, { limit: BUILD_PAGE, ...(cursor ? { cursor } : {}) });
    const ids = page.items.map((contact) => contact.originId);
    const [stats, members, all] = await Promise.all([
      deps.stats.getMany(storeId, ids),
      deps.members.membersAmong(storeId, segmentId, ids),
      deps.segments.list(storeId),
    ]);
    const now = deps.clock.now();
    for (const contact of page.items) {
      const contactStats = stats.get(contact.originId);
      const holds = (await evaluate(segment.conditions, segmentFacts(contact, contactStats, now))).holds;
      const member = members.has(contact.originId);
      if (holds && !member) {
        const email = contact.email?.trim().toLowerCase();
        await deps.members.enter(storeId, segmentId, {
          customerId: contact.originId,
          ...(email ? { email } : {}),
          enteredAt: now,
        });
        changed++;
      } else if (!holds && member) {
        await deps.members.exit(storeId, segmentId, contact.originId);
        changed++;
      }
      await scheduleRecheck(deps, storeId, contact.originId, all, contactStats, now);
    }
    scanned += page.items.length;
    if (page.items.length > 0) await deps.states.progress(storeId, segmentId, revision, page.items.length);
    if (!page.nextCursor) {
      await deps.states.finishBuild(storeId, segmentId, revision, deps.clock.now());
      return { segmentId, ready: true, scanned, changed };
    }
    cursor = page.nextCursor;
    if (!hasTime()) {
      await deps.queue.send({ ...message, cursor });
      return { segmentId, continued: true, scanned, changed };
    }
  }
};

const purge = async (deps: SegmentWorkerDeps, storeId: string, segmentId: string, hasTime: () => boolean) => {
  let removed = 0;
  for (;;) {
    const count = await deps.members.purgePage(storeId, segmentId);
    removed += count;
    if (count === 0) return { segmentId, purged: removed };
    if (!hasTime()) {
      await deps.queue.send({ v: 1, type: 'purge', storeId, segmentId });
      return { segmentId, purged: removed, continued: true };
    }
  }
};

/** Handles one segments-queue message; `hasTime` says whether the invocation may start another page. */
export const handleSegmentMessage = async (
  deps: SegmentWorkerDeps,
  message: SegmentMessage,
  hasTime: () => boolean = () => true,
): Promise<Record<string, unknown>> => {
  switch (message.type) {
    case 'build':
      return build(deps, message, hasTime);
    case 'purge':
      // A segment deleted moments ago: its definition is gone, so nothing adds members any more.
      return purge(deps, message.storeId, message.segmentId, hasTime);
    case 'contact': {
      const outcome = await refreshContact(deps, message.storeId, message.customerId, {
        id: `timer#${message.at}`,
        trigger: { timer: `segment#${message.at}` },
        at: message.at,
        fire: true,
      });
      return { customerId: message.customerId, ...outcome };
    }
  }
};
