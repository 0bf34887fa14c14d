/**
 * Keeping membership current, one contact at a time: after an event changed a contact's facts, or when a
 * time window of one of its conditions flips, the contact is evaluated against every segment of the store and only the
 * changes are written — an entry is a conditional put of the member item, an exit its conditional delete, each moving
 * the live count by one. No scan: the work per event is the store's segment list (read once per worker batch), the
 * contact, its stats and one batch read of its memberships.
 *
 * `segment_entered` / `segment_exited` triggers are fired before the member write, with an id made of the segment,
 * the contact and the cause: a retry after a crash between the two finds the same change and fires the same trigger
 * id again, which the flow engine records once. A segment still building fires nothing (its contacts are being added
 * by the build pass, which is not news about them); neither does an event sent with `ignore_flow = Y`, nor one sent
 * with the publishable key (`after-event.ts`).
 */
import type { Clock } from '#shared/domain/clock.ts';
import type { Customer } from '#shared/domain/customers/model.ts';
import type { CustomerRepository } from '#shared/domain/customers/ports.ts';
import { evaluate } from '#shared/domain/flows/conditions.ts';
import type { FlowTriggers } from '#shared/domain/flows/ports.ts';
import type { FlowTrigger } from '#shared/domain/flows/trigger.ts';
import { timerName } from '#shared/domain/timers/model.ts';
import type { Timers } from '#shared/domain/timers/ports.ts';
import { nextFlip, segmentFacts } from './facts.ts';
import type { ContactStats, Segment, SegmentState } from './model.ts';
import type { ContactStatsRepository, SegmentMembers, SegmentRepository, SegmentStates } from './ports.ts';

export interface MembershipDeps {
  /** The store's segments; the worker reads them once per batch. */
  readonly segments: Pick<SegmentRepository, 'list'>;
  /** Their build status (a building segment fires no triggers); also read once per batch. */
  readonly states: Pick<SegmentStates, 'getMany'>;
  readonly customers: Pick<CustomerRepository, 'get'>;
  readonly stats: Pick<ContactStatsRepository, 'get'>;
  readonly members: Pick<SegmentMembers, 'memberOf' | 'enter' | 'exit'>;
  readonly triggers: FlowTriggers;
  /** Time-window re-evaluations: through the timer wheel, one schedule per store and due minute. */
  readonly timers: Timers;
  readonly clock: Clock;
}

/** What changed a contact: its id makes trigger ids; `at` is the moment to evaluate at (a timer's flip time). */
export interface RefreshCause {
  /** `event#<source_id>` or `timer#<epoch ms>`. */
  readonly id: string;
  readonly trigger: FlowTrigger['cause'];
  /** Epoch ms; the evaluation uses the later of it and the clock (a timer never fires before its time). */
  readonly at?: number;
  /**
   * False for `ignore_flow = Y`, for events sent with the publishable key and for builds: membership changes, no flow
   * starts.
   */
  readonly fire: boolean;
}

export interface RefreshOutcome {
  readonly entered: readonly string[];
  readonly exited: readonly string[];
  /** Epoch ms of the scheduled re-evaluation, if a time window can still flip. */
  readonly recheckAt?: number;
}

/** The Scheduler / wheel name of a contact's re-evaluation: one per contact, so re-setting moves it. */
export const segmentTimerName = (storeId: string, customerId: string) => timerName('segment', storeId, customerId);

const triggerOf = (
  kind: 'segment_entered' | 'segment_exited',
  segment: Segment,
  contact: Customer | undefined,
  customerId: string,
  cause: RefreshCause,
  at: number,
): FlowTrigger => ({
  id: `segment#${segment.id}#${customerId}#${kind === 'segment_entered' ? 'in' : 'out'}#${cause.id}`,
  storeId: segment.storeId,
  kind,
  subject: { type: 'segment', id: segment.id },
  contact: {
    customerId,
    ...(contact?.email ? { email: contact.email } : {}),
    ...(contact?.phone ? { phone: contact.phone } : {}),
  },
  cause: cause.trigger,
  context: { segment: { id: segment.id, name: segment.name } },
  at,
});

/** Schedules the contact's next re-evaluation when one of the store's time windows can still flip for it. */
export const scheduleRecheck = async (
  deps: Pick<MembershipDeps, 'timers'>,
  storeId: string,
  customerId: string,
  segments: readonly Segment[],
  stats: ContactStats | undefined,
  now: number,
): Promise<number | undefined> => {
  const at = nextFlip(
    segments.map((segment) => segment.conditions),
    stats,
    now,
  );
  if (at === undefined) return undefined;
  await deps.timers.set({
    name: segmentTimerName(storeId, customerId),
    at,
    payload: { v: 1, kind: 'segment', storeId, customerId, at },
  });
  return at;
};

const ready = (state: SegmentState | undefined) => state?.build.status === 'ready';

/** Evaluates the contact against every segment of the store and writes what changed. */
export const refreshContact = async (
  deps: MembershipDeps,
  storeId: string,
  customerId: string,
  cause: RefreshCause,
): Promise<RefreshOutcome> => {
  const segments = await deps.segments.list(storeId);
  if (segments.length === 0) return { entered: [], exited: [] };
  const ids = segments.map((segment) => segment.id);
  const [contact, stats, current, states] = await Promise.all([
    deps.customers.get(storeId, customerId),
    deps.stats.get(storeId, customerId),
    deps.members.memberOf(storeId, ids, customerId),
    deps.states.getMany(storeId, ids),
  ]);
  const now = Math.max(deps.clock.now(), cause.at ?? 0);
  const facts = segmentFacts(contact, stats, now);
  const entered: string[] = [];
  const exited: string[] = [];
  for (const segment of segments) {
    const holds = contact !== undefined && (await evaluate(segment.conditions, facts)).holds;
    const member = current.has(segment.id);
    if (holds === member) continue;
    const fire = cause.fire && ready(states.get(segment.id));
    if (holds) {
      if (fire) await deps.triggers.fire(triggerOf('segment_entered', segment, contact, customerId, cause, now));
      const email = contact?.email?.trim().toLowerCase();
      await deps.members.enter(storeId, segment.id, { customerId, ...(email ? { email } : {}), enteredAt: now });
      entered.push(segment.id);
    } else {
      if (fire) await deps.triggers.fire(triggerOf('segment_exited', segment, contact, customerId, cause, now));
      await deps.members.exit(storeId, segment.id, customerId);
      exited.push(segment.id);
    }
  }
  const recheckAt = contact ? await scheduleRecheck(deps, storeId, customerId, segments, stats, now) : undefined;
  return { entered, exited, ...(recheckAt !== undefined ? { recheckAt } : {}) };
};
