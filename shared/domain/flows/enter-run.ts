import { groupCounter } from '#shared/domain/attribution/experiment.ts';
import { dayOf } from '#shared/domain/attribution/model.ts';
import { type AdvanceDeps, type AdvanceOptions, advanceRun } from './advance-run.ts';
import { evaluate } from './conditions.ts';
import { consentAllows, findContact, normalEmail } from './contact-facts.ts';
import { SEND_CLAIM_MS } from './email-step.ts';
import { factsFor } from './facts.ts';
import type { Flow, ReentryPolicy } from './flow.ts';
import type {
  ContactActivityEntry,
  FlowEntries,
  FlowEvaluationRepository,
  FlowRepository,
  FlowRunRepository,
  RunAdmission,
} from './ports.ts';
import { type FlowEvaluation, type FlowRun, runIdOf, type SkipReason } from './run.ts';
import { finished } from './run-changes.ts';
import { groupOf, HOLDOUT } from './split.ts';
import { startingRun } from './transition.ts';
import { type FlowKind, type FlowTrigger, isSegmentKind, knownAddress } from './trigger.ts';

export interface EnterDeps extends AdvanceDeps {
  /** The store's run-start budget (a trigger over it is put off, whole); without it, no bound. */
  readonly admission?: RunAdmission;
  readonly flows: Pick<FlowRepository, 'get' | 'list'>;
  readonly runs: FlowRunRepository;
  readonly evaluations: Pick<FlowEvaluationRepository, 'record'>;
  readonly entries: FlowEntries;
}

/**
 * A re-entry guard claimed this long ago by a delivery that has not written its run yet is taken back: that delivery
 * died. Longer than the flow worker's timeout, shorter than the queue's visibility timeout (as `SEND_CLAIM_MS`).
 */
export const ENTRY_CLAIM_MS = SEND_CLAIM_MS;

/** Reads of a run another delivery is starting, `STARTED_ELSEWHERE_PAUSE_MS` apart, before the message is retried. */
const STARTED_ELSEWHERE_TRIES = 3;
const STARTED_ELSEWHERE_PAUSE_MS = 100;

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A read started before it is awaited: its failure is the awaiter's (it rejects there as it would have), not an
 * unhandled rejection in between, nor when the path that would have awaited it ends before.
 */
const started = <T>(read: Promise<T>): Promise<T> => {
  read.catch(() => undefined);
  return read;
};

/** Evaluations recorded for a trigger of a kind with no flow at all are kept under this pseudo flow id. */
export const noFlowPartition = (kind: FlowKind) => `-none-${kind}`;

/** The re-entry guard's key and, for a cool-down, the entry time before which a holder no longer blocks. */
const entryGuard = (policy: ReentryPolicy, trigger: FlowTrigger, email: string) => {
  switch (policy.type) {
    case 'once_per_contact':
      return { key: `contact#${email}` };
    case 'once_per_subject':
      return { key: `subject#${trigger.subject.type}#${trigger.subject.id}` };
    case 'cooldown':
      return { key: `contact#${email}`, expiredBefore: trigger.at - policy.seconds * 1000 };
  }
};

/** A trigger whose runs do not fit in the store's run-start budget now: reserved for `at` (the caller queues it). */
export class RunsDeferred extends Error {
  readonly at: number;
  constructor(storeId: string, at: number) {
    super(
      `Store ${storeId} is over its flow-run start budget; the trigger's runs start at ${new Date(at).toISOString()}`,
    );
    this.name = 'RunsDeferred';
    this.at = at;
  }
}

export interface TriggerOutcome {
  readonly entered: readonly string[];
  readonly skipped: readonly { flowId?: string; reason: SkipReason }[];
  /** Flows after this id are still to be evaluated: the trigger's next step (its runs start in steps). */
  readonly continueAfter?: string;
}

const byId = (a: Flow, b: Flow) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** The flows a trigger is evaluated against; `none` when there is no candidate at all. */
const candidatesOf = async (
  deps: Pick<EnterDeps, 'flows'>,
  trigger: FlowTrigger,
): Promise<{ flows: Flow[] } | { none: { partition: string; flowId?: string } }> => {
  if (trigger.kind === 'custom_notification') {
    // Spec rule 4: the flow named by flow_id, in this store, of the custom-notification kind; else skipped silently.
    const flowId = String(trigger.context.flow_id ?? trigger.subject.id);
    const flow = await deps.flows.get(trigger.storeId, flowId);
    return flow?.trigger === 'custom_notification' ? { flows: [flow] } : { none: { partition: flowId, flowId } };
  }
  // A segment flow answers only its own segment's changes (the trigger's subject is the segment).
  const flows = (await deps.flows.list(trigger.storeId)).filter(
    (flow) => flow.trigger === trigger.kind && (!isSegmentKind(trigger.kind) || flow.segmentId === trigger.subject.id),
  );
  return flows.length > 0 ? { flows } : { none: { partition: noFlowPartition(trigger.kind) } };
};

/**
 * Evaluates a trigger against the store's flows of its kind and starts a run for each one it enters, then advances
 * the new runs to their first wait (or end). Safe to call again for the same trigger.
 */
export const handleTrigger = async (
  deps: EnterDeps,
  trigger: FlowTrigger,
  options: Pick<AdvanceOptions, 'lastAttempt'> & {
    /** Its runs' starts were reserved already (a trigger put off, now at its time): not counted again. */
    readonly admitted?: boolean;
    /**
     * Evaluate at most this many flows now (by flow id); the outcome's `continueAfter` says where the next step
     * starts. Absent: every flow at once.
     */
    readonly slice?: number;
    /** A later step: only the flows after this id (its starts were reserved with the first step). */
    readonly after?: string;
  } = {},
): Promise<TriggerOutcome> => {
  const given = normalEmail(trigger.contact.email);
  const found = await candidatesOf(deps, trigger);
  const { after, slice } = options;
  if (after !== undefined && 'none' in found) return { entered: [], skipped: [] }; // its flows are gone since
  // Counted before anything is written: a trigger over the store's budget is put off whole, until its reserved time.
  if ('flows' in found && deps.admission && !options.admitted && after === undefined) {
    const at = await deps.admission.admit(trigger.storeId, found.flows.length);
    if (at > deps.clock.now()) throw new RunsDeferred(trigger.storeId, at);
  }
  // This step's flows: in id order, after the previous step's last, at most `slice` of them.
  let candidates = found;
  let continueAfter: string | undefined;
  if ('flows' in found && (slice !== undefined || after !== undefined)) {
    const pending = [...found.flows].sort(byId).filter((flow) => after === undefined || flow.id > after);
    if (pending.length === 0) return { entered: [], skipped: [] };
    const step = slice !== undefined && pending.length > slice ? pending.slice(0, Math.max(1, slice)) : pending;
    if (step.length < pending.length) continueAfter = step.at(-1)?.id;
    candidates = { flows: step };
  }
  const ignored = trigger.context.ignore_flow === 'Y';
  let suppressed: Promise<boolean> | undefined;
  const isSuppressed = (address: string) => {
    suppressed ??= deps.suppressions.suppressedAmong(trigger.storeId, [address]).then((set) => set.has(address));
    return suppressed;
  };
  // The reads a flow's entry takes, started beside the contact's (one after the other, they were three of
  // the trigger's round trips): each flow's run (a redelivered trigger continues it) and, when the trigger names its
  // address and a flow may be entered, that address's suppression. Each is awaited where it is needed, as before.
  const runsFound = new Map(
    ('flows' in candidates ? candidates.flows : []).map((flow) => [
      flow.id,
      started(deps.runs.get(trigger.storeId, runIdOf(trigger.storeId, flow.id, trigger.id))),
    ]),
  );
  if (given && !ignored && 'flows' in candidates && candidates.flows.some((flow) => flow.enabled)) {
    started(isSuppressed(given));
  }
  // With no flow to evaluate, the contact is read only to learn an address the trigger did not give.
  const contact =
    'none' in candidates && given ? undefined : await findContact(deps, trigger.storeId, trigger.contact, given);
  const email = given ?? normalEmail(contact?.email);
  // Once per trigger: its first step records the activity, written with the pass's first evaluation records (one
  // batch write with them: alone in its turn it was a write of its own) and before any run moves on.
  const activity: ContactActivityEntry | undefined =
    email && after === undefined
      ? {
          storeId: trigger.storeId,
          email,
          triggerId: trigger.id,
          kind: trigger.kind,
          subject: trigger.subject,
          ...(typeof trigger.context.order === 'object' && trigger.context.order !== null
            ? { status: String((trigger.context.order as Record<string, unknown>).status ?? '') }
            : {}),
          at: trigger.at,
        }
      : undefined;
  let recording: Promise<void> | undefined;
  const recordActivity = async () => {
    if (activity) recording ??= deps.activity.record(activity);
    await recording;
  };

  const evaluation = (flowId: string | undefined, fields: Partial<FlowEvaluation>): FlowEvaluation => ({
    storeId: trigger.storeId,
    ...(flowId !== undefined ? { flowId } : {}),
    triggerId: trigger.id,
    triggerKind: trigger.kind,
    subject: trigger.subject,
    ...(email ? { email } : {}),
    outcome: 'skipped',
    at: trigger.at,
    evaluatedAt: deps.clock.now(),
    ...fields,
  });

  if ('none' in candidates) {
    const reason: SkipReason = ignored ? 'ignore_flow' : 'no_matching_flow';
    await Promise.all([
      deps.evaluations.record(evaluation(candidates.none.flowId, { reason }), candidates.none.partition),
      recordActivity(),
    ]);
    return {
      entered: [],
      skipped: [{ reason, ...(candidates.none.flowId ? { flowId: candidates.none.flowId } : {}) }],
    };
  }

  const facts = factsFor(deps, trigger, email, contact, activity);

  /**
   * The trigger's run of a flow whose guard another delivery of the same trigger holds, fresh: that delivery writes
   * the run. Continued once it is there; if it does not come, the queue retries this message (by then the run is
   * there, or the other delivery's claim is stale and this one takes the guard back).
   */
  const startedElsewhere = async (runId: string): Promise<{ runId: string }> => {
    for (let attempt = 0; ; attempt++) {
      if (await deps.runs.get(trigger.storeId, runId)) return { runId };
      if (attempt >= STARTED_ELSEWHERE_TRIES) {
        throw new Error(`Run ${runId} is being started by another delivery of its trigger; the queue retries`);
      }
      await (deps.sleep ?? pause)(STARTED_ELSEWHERE_PAUSE_MS);
    }
  };

  const enter = async (flow: Flow): Promise<{ runId: string; fresh?: FlowRun } | { reason: SkipReason }> => {
    const runId = runIdOf(trigger.storeId, flow.id, trigger.id);
    // A redelivered trigger: its run exists, continue it rather than evaluate again.
    if (await (runsFound.get(flow.id) ?? deps.runs.get(trigger.storeId, runId))) return { runId };
    const skip = async (reason: SkipReason, detail?: Record<string, unknown>) => {
      await Promise.all([
        deps.evaluations.record(evaluation(flow.id, { reason, ...(detail ? { detail } : {}) }), flow.id),
        recordActivity(),
      ]);
      return { reason };
    };
    if (ignored) return skip('ignore_flow');
    if (!flow.enabled) return skip('flow_disabled');
    if (!email) return skip('no_email');
    if (flow.entry) {
      const verdict = await evaluate(flow.entry, facts);
      if (!verdict.holds) return skip('condition_false', { ...verdict.failed });
    }
    if (!consentAllows(flow.consent, contact)) {
      return skip('no_consent', { required: flow.consent, emailConsent: contact?.emailConsent?.state ?? null });
    }
    if (!knownAddress(trigger, contact, email)) return skip('unconfirmed_address');
    if (await isSuppressed(email)) return skip('suppressed');
    const guard = entryGuard(flow.reentry, trigger, email);
    const claimedAt = deps.clock.now();
    const claim = await deps.entries.claim(trigger.storeId, flow.id, guard.key, {
      runId,
      at: trigger.at,
      claimedAt,
      staleBefore: claimedAt - ENTRY_CLAIM_MS,
      ...(guard.expiredBefore !== undefined ? { expiredBefore: guard.expiredBefore } : {}),
    });
    if (!claim.claimed) {
      if (claim.holder.runId === runId) return startedElsewhere(runId);
      return skip('reentry', { policy: flow.reentry, heldByRun: claim.holder.runId, enteredAt: claim.holder.at });
    }
    const now = deps.clock.now();
    const first = flow.steps[0];
    const entered: FlowRun = {
      storeId: trigger.storeId,
      id: runId,
      flowId: flow.id,
      flowKind: flow.trigger,
      trigger,
      email,
      status: 'active',
      ...(first ? { nextStepId: first.id } : {}),
      events: [{ at: now, type: 'entered' }],
      startedAt: now,
      updatedAt: now,
      revision: 1,
    };
    // A/B group (split.ts): decided now, after every check, so each group is drawn from the same contacts. A held-out
    // run ends at once: it sends nothing, and is measured like the others from its entry.
    const group = groupOf(flow, email);
    const grouped: FlowRun = group !== undefined ? { ...entered, group } : entered;
    const run =
      group === HOLDOUT
        ? finished(grouped, now, 'exited', 'holdout', { holdoutPercent: flow.holdoutPercent })
        : startingRun(grouped, flow, now);
    // A guard taken afresh: no other delivery writes this run, so it goes out with the batch's other puts (its
    // evaluation beside it). A guard taken back from a dead delivery (or from before claims carried their time): that
    // delivery may have written the run, so the conditional create decides; lost, its run goes on.
    const [created] = await Promise.all([
      deps.runs.create(run, claim.reclaimed ? {} : { guarded: true }),
      deps.evaluations.record(evaluation(flow.id, { outcome: 'entered', runId }), flow.id),
      recordActivity(),
    ]);
    if (created) {
      // The funnel's first count, once per run (only the pass that created it), with its group's.
      const counts = group !== undefined ? { entered: 1, [groupCounter(group, 'entered')]: 1 } : { entered: 1 };
      await deps.attribution.add(trigger.storeId, [`flow#${flow.id}`], dayOf(now), counts);
      if (group !== undefined) {
        await deps.attribution.markExposure(trigger.storeId, email, { flowId: flow.id, runId, group, at: now });
      }
    }
    return created ? { runId, fresh: run } : { runId };
  };

  const results = await Promise.all(candidates.flows.map(async (flow) => ({ flow, result: await enter(flow) })));
  // Written by now unless every run was there already (a redelivered trigger): then on its own, before they go on.
  await recordActivity();
  const entered: string[] = [];
  const advances: Promise<unknown>[] = [];
  const skipped: { flowId: string; reason: SkipReason }[] = [];
  for (const { flow, result } of results) {
    if ('runId' in result) {
      entered.push(result.runId);
      // Consent and suppression were checked just now for a run this pass created (not for one found existing).
      const fresh = result.fresh ? { run: result.fresh, flow, contact } : undefined;
      advances.push(advanceRun(deps, trigger.storeId, result.runId, fresh ? { ...options, fresh } : options));
    } else {
      skipped.push({ flowId: flow.id, reason: result.reason });
    }
  }
  await Promise.all(advances);
  return { entered, skipped, ...(continueAfter !== undefined ? { continueAfter } : {}) };
};
