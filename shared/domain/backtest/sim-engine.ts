/**
 * The flow engine's ports for a backtest: the live engine's use cases (`handleTrigger`, `advanceRun`, `fireTimer`)
 * run unchanged against these in-memory stand-ins. Nothing is sent: the mailer keeps what would have gone out. Runs,
 * evaluations, re-entry guards, activity and recovery marks start empty; only the draft flow exists.
 */
import type { Touch } from '#shared/domain/attribution/model.ts';
import type { AttributionStore } from '#shared/domain/attribution/ports.ts';
import type { Clock } from '#shared/domain/clock.ts';
import { EMAIL_TAGS, type OutboundEmail } from '#shared/domain/email/model.ts';
import type { RecentSends } from '#shared/domain/email/ports.ts';
import { keptSends, type RecentSend } from '#shared/domain/email/smart-sending.ts';
import type { Flow } from '#shared/domain/flows/flow.ts';
import type {
  ContactActivity,
  ContactActivityEntry,
  FlowEntries,
  FlowEvaluationRepository,
  FlowRunRepository,
  RecoveryMark,
  RecoveryMarks,
} from '#shared/domain/flows/ports.ts';
import type { FlowEvaluation, FlowRun } from '#shared/domain/flows/run.ts';
import { RevisionConflict } from '#shared/domain/repository.ts';

/** An email the run would have sent. */
export interface SimEmail {
  readonly messageId: string;
  readonly runId: string;
  readonly subject: string;
  readonly at: number;
}

/** A recovered order the replay attributed to a simulated email. */
export interface SimRecovery {
  readonly orderId: string;
  readonly touch: Touch;
  readonly currency: string;
  readonly amount: number;
  readonly at: number;
}

export const simRuns = () => {
  const runs = new Map<string, FlowRun>();
  const repository: FlowRunRepository = {
    get: async (_storeId, runId) => runs.get(runId),
    async create(run) {
      if (runs.has(run.id)) return false;
      runs.set(run.id, run);
      return true;
    },
    async save(run, expectedRevision) {
      if ((runs.get(run.id)?.revision ?? 0) !== expectedRevision) throw new RevisionConflict(`run ${run.id}`);
      runs.set(run.id, run);
    },
    getMany: async (_storeId, ids) => ids.map((id) => runs.get(id)).filter((run) => run !== undefined),
  };
  return { runs, repository };
};

/** Evaluations of the draft flow (the others, `no_matching_flow` of other kinds, are not kept). */
export const simEvaluations = (flowId: string) => {
  const byTrigger = new Map<string, FlowEvaluation>();
  const repository: Pick<FlowEvaluationRepository, 'record'> = {
    async record(evaluation) {
      if (evaluation.flowId === flowId) byTrigger.set(evaluation.triggerId, evaluation);
    },
  };
  return { evaluations: byTrigger, repository };
};

export const simEntries = (): FlowEntries => {
  const entries = new Map<string, { runId: string; at: number; claimedAt: number }>();
  return {
    async claim(_storeId, flowId, key, entry) {
      const id = `${flowId}#${key}`;
      const holder = entries.get(id);
      // Held by this run: taken back only when its claim is stale (as the table's guard).
      const own = holder?.runId === entry.runId && holder.claimedAt < entry.staleBefore;
      const free = !holder || own || (entry.expiredBefore !== undefined && holder.at < entry.expiredBefore);
      if (!free) return { claimed: false, holder: { runId: holder.runId, at: holder.at } };
      entries.set(id, { runId: entry.runId, at: entry.at, claimedAt: entry.claimedAt });
      return holder?.runId === entry.runId ? { claimed: true, reclaimed: true } : { claimed: true };
    },
  };
};

/** Activity per address, in trigger order (one entry per trigger and address, as the table keeps it). */
export const simActivity = (): ContactActivity => {
  const byEmail = new Map<string, ContactActivityEntry[]>();
  return {
    async record(entry) {
      const list = byEmail.get(entry.email) ?? [];
      if (!list.some((a) => a.triggerId === entry.triggerId)) list.push(entry);
      byEmail.set(entry.email, list);
    },
    since: async (_storeId, email, from) => (byEmail.get(email) ?? []).filter((a) => a.at >= from),
  };
};

export const simMarks = (): RecoveryMarks => {
  const marks = new Map<string, RecoveryMark>();
  return {
    async claim(_storeId, email, productId, mark) {
      const id = `${email}#${productId}`;
      const holder = marks.get(id);
      if (holder && holder.kind !== mark.kind && holder.runId !== mark.runId && holder.at >= mark.notBefore) {
        return { claimed: false, holder };
      }
      marks.set(id, { kind: mark.kind, runId: mark.runId, at: mark.at });
      return { claimed: true };
    },
    async release(_storeId, email, productId, runId) {
      const id = `${email}#${productId}`;
      if (marks.get(id)?.runId === runId) marks.delete(id);
    },
  };
};

/** The mailer that sends nothing: it keeps the rendered subject of each email, by a message id of its own. */
export const simMailer = (clock: Clock) => {
  const emails = new Map<string, SimEmail>();
  const mailer = {
    async send(message: OutboundEmail) {
      const messageId = `backtest-${emails.size + 1}`;
      emails.set(messageId, {
        messageId,
        runId: message.tags[EMAIL_TAGS.transmission] ?? '',
        subject: message.subject,
        at: clock.now(),
      });
      return { messageId };
    },
  };
  return { emails, mailer };
};

/**
 * Attribution in memory, with the live store's rules for what the replay can see: the last email about a cart or
 * checkout, and each order decided once. Counters are not kept (the answer counts for itself); clicks never happen.
 */
export const simAttribution = (clock: Clock) => {
  const subjects = new Map<string, Touch>();
  const orders = new Set<string>();
  const recovered: SimRecovery[] = [];
  const none = async () => undefined;
  const store: AttributionStore = {
    async markSubject(_storeId, subject, touch) {
      const key = `${subject.type}#${subject.id}`;
      const before = subjects.get(key);
      if (!before || before.at <= touch.at) subjects.set(key, touch);
    },
    latestForSubjects: async (_storeId, list) =>
      list
        .map((s) => subjects.get(`${s.type}#${s.id}`))
        .filter((t): t is Touch => t !== undefined)
        .sort((a, b) => b.at - a.at)[0],
    markClick: none,
    lastClick: none,
    // A backtest replays no clicks, so no order waits for a late one.
    markUnattributed: none,
    unattributedOrders: async () => [],
    reconsiderOrder: async () => false,
    async claimOrder(_storeId, orderId, attribution) {
      if (orders.has(orderId)) return false;
      orders.add(orderId);
      if (attribution.kind === 'recovered') {
        const { touch, currency, amount } = attribution;
        recovered.push({ orderId, touch, currency, amount, at: clock.now() });
      }
      return true;
    },
    claimOnce: async () => true,
    addTo: none,
    add: none,
    days: async () => [],
    months: async () => [],
    periods: async () => new Map(),
    monthsKept: async () => true,
    deleteScope: none,
    rebuildMonths: none,
    // A/B groups are measured on the live counters; the replay reports each run's path without them.
    markExposure: none,
    exposuresOf: async () => [],
    addExposureRevenue: none,
  };
  return { store, recovered };
};

/** The flows the engine sees: the draft alone. */
export const simFlows = (flow: Flow) => ({
  get: async (_storeId: string, flowId: string) => (flowId === flow.id ? flow : undefined),
  list: async () => [flow],
});

/** A live read done once per key for the whole replay. */
export const memo = <K, V>(read: (key: K) => Promise<V>): ((key: K) => Promise<V>) => {
  const seen = new Map<K, Promise<V>>();
  return (key) => {
    let hit = seen.get(key);
    if (!hit) {
      hit = read(key);
      seen.set(key, hit);
    }
    return hit;
  };
};

/**
 * Recent marketing sends in memory (the frequency cap, docs/smart-sending.md): the replay starts with none, so the cap
 * sees the draft flow's own simulated emails (the period's live emails of other flows and campaigns are not replayed).
 */
/** The send times per address, as tests read and set them (a time set here belongs to no run). */
export interface RecentTimes {
  get(email: string): number[] | undefined;
  set(email: string, times: readonly number[]): void;
}

export const simRecentSends = (): RecentSends & { readonly times: RecentTimes } => {
  const sends = new Map<string, RecentSend[]>();
  const timesOf = (email: string) => (sends.get(email.toLowerCase()) ?? []).map((s) => s.at);
  const times: RecentTimes = {
    get: (email) => (sends.has(email.toLowerCase()) ? timesOf(email) : undefined),
    set: (email, list) =>
      void sends.set(
        email.toLowerCase(),
        list.map((at) => ({ at })),
      ),
  };
  const add = (email: string, send: RecentSend) => {
    const key = email.toLowerCase();
    sends.set(key, keptSends([...(sends.get(key) ?? []), send], send.at));
  };
  return {
    times,
    get: async (_storeId, email) => timesOf(email),
    among: async (_storeId, emails, exceptId) =>
      new Map(
        emails.flatMap((e) => {
          const list = sends.get(e.toLowerCase());
          return list ? [[e.toLowerCase(), list.filter((s) => s.id !== exceptId).map((s) => s.at)] as const] : [];
        }),
      ),
    async record(_storeId, emails, send) {
      for (const email of emails) {
        if (!(sends.get(email.toLowerCase()) ?? []).some((s) => s.id === send.id)) add(email, send);
      }
    },
    async take(_storeId, email, send, allows) {
      const list = sends.get(email.toLowerCase()) ?? [];
      const others = list.filter((s) => s.id !== send.id).map((s) => s.at);
      if (list.some((s) => s.id === send.id)) return { taken: true, times: others };
      if (!allows(others)) return { taken: false, times: others };
      add(email, send);
      return { taken: true, times: others };
    },
    async release(_storeId, email, id) {
      const key = email.toLowerCase();
      sends.set(
        key,
        (sends.get(key) ?? []).filter((s) => s.id !== id),
      );
    },
  };
};
