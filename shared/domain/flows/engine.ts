/**
 * The flow engine: a trigger becomes runs of the store's matching flows, and each run walks its flow's steps (wait,
 * email, exit_if). Every decision is recorded for the explain views. docs/flows.md "How runs work" is the user-facing
 * account of these rules.
 *
 * Idempotency (the flows queue is at-least-once, and two deliveries of one message may even overlap):
 * - the run id is derived from (store, flow, trigger), and the run is created with a conditional put, so the same
 *   trigger never starts two runs of one flow; a redelivered trigger finds its runs and continues them;
 * - re-entry guards are conditional puts that also accept their own run (a retry after a crash between claim and run);
 * - every step transition is a conditional write on the run's revision: of two workers, one moves the run on and the
 *   other re-reads it and sees the step already done;
 * - an email step is claimed on the run (`sending`) before the Mailer call and completed with the message id after it.
 *   A transient failure releases the claim (the retry sends); a claim left by a crashed worker is taken over once it
 *   is older than the queue's visibility timeout. So an email is sent twice only if a worker dies between SES
 *   accepting the message and the one write that records it.
 */

import type { CartRepository } from '#shared/domain/carts/ports.ts';
import type { CheckoutRepository } from '#shared/domain/checkouts/ports.ts';
import type { Clock } from '#shared/domain/clock.ts';
import type { ContactsByEmail } from '#shared/domain/contacts/ports.ts';
import type { Customer } from '#shared/domain/customers/model.ts';
import type { CustomerRepository } from '#shared/domain/customers/ports.ts';
import { EMAIL_TAGS, listUnsubscribeHeaders } from '#shared/domain/email/model.ts';
import type { Mailer, SentMessages, Suppressions } from '#shared/domain/email/ports.ts';
import { RevisionConflict } from '#shared/domain/repository.ts';
import type { Store } from '#shared/domain/stores/model.ts';
import { timerName } from '#shared/domain/timers/model.ts';
import type { Timers } from '#shared/domain/timers/ports.ts';
import { isAppError, PermanentError } from '#shared/errors.ts';
import { evaluate } from './conditions.ts';
import { factsFor, productIdsOf } from './facts.ts';
import type { ConsentRequirement, Flow, FlowStep, ReentryPolicy } from './flow.ts';
import type { FlowMessage } from './flow-message.ts';
import type {
  ContactActivity,
  FlowEntries,
  FlowEvaluationRepository,
  FlowRepository,
  FlowRunRepository,
  RecoveryMarks,
  TriggerLog,
  UnsubscribeUrls,
} from './ports.ts';
import { renderEmail, TemplateError } from './render.ts';
import {
  EXPLAIN_RETENTION_SECONDS,
  type FlowEvaluation,
  type FlowRun,
  type RunEvent,
  type RunStatus,
  runIdOf,
  type SkipReason,
  TERMINAL,
} from './run.ts';
import { buildTemplateContext } from './template-context.ts';
import type { FlowKind, FlowTrigger, TriggerContact } from './trigger.ts';

export interface EngineDeps {
  readonly flows: Pick<FlowRepository, 'get' | 'list'>;
  readonly runs: FlowRunRepository;
  readonly evaluations: FlowEvaluationRepository;
  readonly entries: FlowEntries;
  readonly activity: ContactActivity;
  readonly marks: RecoveryMarks;
  readonly customers: Pick<CustomerRepository, 'get'>;
  readonly contacts: ContactsByEmail;
  readonly carts: CartRepository;
  readonly checkouts: CheckoutRepository;
  readonly stores: { get(storeId: string): Promise<Store | undefined> };
  readonly suppressions: Pick<Suppressions, 'suppressedAmong'>;
  readonly mailer: Pick<Mailer, 'send'>;
  readonly sent: Pick<SentMessages, 'record'>;
  readonly timers: Timers;
  readonly unsubscribe: UnsubscribeUrls;
  /**
   * The store's own verified sending domains. SES identities are account-wide, so without this check a store could
   * send flow email from another store's (DKIM-signed) domain. Throws a validation or conflict `AppError` when the
   * address's domain is not a verified sender of the store.
   */
  readonly senders: { requireVerified(storeId: string, fromEmail: string): Promise<unknown> };
  readonly clock: Clock;
}

/**
 * An email claim older than this is taken over: its worker died. Longer than the flow worker's timeout and shorter
 * than the queue's visibility timeout (180 s), so the redelivery of a dead worker's message finds it stale.
 */
export const SEND_CLAIM_MS = 150_000;

/** Browse and cart recovery do not both mail one address about one product within this window (or the flow's cool-down). */
export const RECOVERY_OVERLAP_SECONDS = 24 * 3600;

const RECOVERY_KINDS: ReadonlySet<FlowKind> = new Set(['abandoned_cart', 'browse_recovery']);

/** Evaluations recorded for a trigger of a kind with no flow at all are kept under this pseudo flow id. */
export const noFlowPartition = (kind: FlowKind) => `-none-${kind}`;

export const normalEmail = (email: string | undefined): string | undefined => {
  const trimmed = email?.trim().toLowerCase();
  return trimmed ? trimmed : undefined;
};

const expiresAt = (now: number) => Math.floor(now / 1000) + EXPLAIN_RETENTION_SECONDS;

/** The contact the trigger is about: by the store's customer id first, else the most recently changed with the address. */
export const findContact = async (
  deps: Pick<EngineDeps, 'customers' | 'contacts'>,
  storeId: string,
  who: TriggerContact,
  email: string | undefined,
): Promise<Customer | undefined> => {
  if (who.customerId) {
    const byId = await deps.customers.get(storeId, who.customerId);
    if (byId && (!email || normalEmail(byId.email) === email)) return byId;
  }
  if (!email) return undefined;
  const found = await deps.contacts.find(storeId, email);
  return found.sort((a, b) => b.updatedAt - a.updatedAt)[0];
};

/** Whether the flow's consent requirement lets it mail this contact (suppression is checked apart). */
export const consentAllows = (required: ConsentRequirement, contact: Customer | undefined): boolean => {
  const state = contact?.emailConsent?.state;
  if (required === 'transactional') return true;
  if (required === 'not_unsubscribed') return state !== 'unsubscribed';
  return state === 'subscribed';
};

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

// ── Triggers → runs ────────────────────────────────────────────────────────────────────────────────────────────────

export interface TriggerOutcome {
  readonly entered: readonly string[];
  readonly skipped: readonly { flowId?: string; reason: SkipReason }[];
}

/** The flows a trigger is evaluated against; `none` when there is no candidate at all. */
const candidatesOf = async (
  deps: EngineDeps,
  trigger: FlowTrigger,
): Promise<{ flows: Flow[] } | { none: { partition: string; flowId?: string } }> => {
  if (trigger.kind === 'custom_notification') {
    // Spec rule 4: the flow named by flow_id, in this store, of the custom-notification kind; else skipped silently.
    const flowId = String(trigger.context.flow_id ?? trigger.subject.id);
    const flow = await deps.flows.get(trigger.storeId, flowId);
    return flow?.trigger === 'custom_notification' ? { flows: [flow] } : { none: { partition: flowId, flowId } };
  }
  const flows = (await deps.flows.list(trigger.storeId)).filter((flow) => flow.trigger === trigger.kind);
  return flows.length > 0 ? { flows } : { none: { partition: noFlowPartition(trigger.kind) } };
};

/**
 * Evaluates a trigger against the store's flows of its kind and starts a run for each one it enters, then advances
 * the new runs to their first wait (or end). Safe to call again for the same trigger.
 */
export const handleTrigger = async (
  deps: EngineDeps,
  trigger: FlowTrigger,
  options: Pick<AdvanceOptions, 'lastAttempt'> = {},
): Promise<TriggerOutcome> => {
  const given = normalEmail(trigger.contact.email);
  const candidates = await candidatesOf(deps, trigger);
  // With no flow to evaluate, the contact is read only to learn an address the trigger did not give.
  const contact =
    'none' in candidates && given ? undefined : await findContact(deps, trigger.storeId, trigger.contact, given);
  const email = given ?? normalEmail(contact?.email);
  if (email) {
    await deps.activity.record({
      storeId: trigger.storeId,
      email,
      triggerId: trigger.id,
      kind: trigger.kind,
      subject: trigger.subject,
      ...(typeof trigger.context.order === 'object' && trigger.context.order !== null
        ? { status: String((trigger.context.order as Record<string, unknown>).status ?? '') }
        : {}),
      at: trigger.at,
    });
  }

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

  const ignored = trigger.context.ignore_flow === 'Y';
  if ('none' in candidates) {
    const reason: SkipReason = ignored ? 'ignore_flow' : 'no_matching_flow';
    await deps.evaluations.record(evaluation(candidates.none.flowId, { reason }), candidates.none.partition);
    return {
      entered: [],
      skipped: [{ reason, ...(candidates.none.flowId ? { flowId: candidates.none.flowId } : {}) }],
    };
  }

  let suppressed: Promise<boolean> | undefined;
  const isSuppressed = (address: string) => {
    suppressed ??= deps.suppressions.suppressedAmong(trigger.storeId, [address]).then((set) => set.has(address));
    return suppressed;
  };
  const facts = factsFor(deps, trigger, email, contact);

  const enter = async (flow: Flow): Promise<{ runId: string; fresh?: FlowRun } | { reason: SkipReason }> => {
    const runId = runIdOf(trigger.storeId, flow.id, trigger.id);
    // A redelivered trigger: its run exists, continue it rather than evaluate again.
    if (await deps.runs.get(trigger.storeId, runId)) return { runId };
    const skip = async (reason: SkipReason, detail?: Record<string, unknown>) => {
      await deps.evaluations.record(evaluation(flow.id, { reason, ...(detail ? { detail } : {}) }), flow.id);
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
    if (await isSuppressed(email)) return skip('suppressed');
    const guard = entryGuard(flow.reentry, trigger, email);
    const claim = await deps.entries.claim(trigger.storeId, flow.id, guard.key, {
      runId,
      at: trigger.at,
      ...(guard.expiredBefore !== undefined ? { expiredBefore: guard.expiredBefore } : {}),
    });
    if (!claim.claimed) {
      return skip('reentry', { policy: flow.reentry, heldByRun: claim.holder.runId, enteredAt: claim.holder.at });
    }
    const now = deps.clock.now();
    const first = flow.steps[0];
    const run: FlowRun = {
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
    // Lost to a concurrent delivery of the same trigger: that one's run goes on; read it rather than assume ours.
    const created = await deps.runs.create(run);
    await deps.evaluations.record(evaluation(flow.id, { outcome: 'entered', runId }), flow.id);
    return created ? { runId, fresh: run } : { runId };
  };

  const results = await Promise.all(candidates.flows.map(async (flow) => ({ flow, result: await enter(flow) })));
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
  return { entered, skipped };
};

// ── Runs ───────────────────────────────────────────────────────────────────────────────────────────────────────────

export interface AdvanceOptions {
  /** The wait step whose timer fired (a resume message); without it a waiting run stays waiting. */
  readonly resumeStepId?: string;
  /** The queue will not deliver this message again: a transient send failure fails the run instead of retrying. */
  readonly lastAttempt?: boolean;
  /**
   * What the trigger's evaluation just wrote and read: the new run, its flow, and the contact whose consent and
   * suppression it checked. The first pass uses them instead of reading again; after a wait everything is read afresh.
   */
  readonly fresh?: { readonly run: FlowRun; readonly flow: Flow; readonly contact: Customer | undefined };
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** The run with `changes` applied, the listed fields removed, events appended, and the revision moved on. */
const next = (
  run: FlowRun,
  now: number,
  changes: Partial<FlowRun>,
  drop: readonly (keyof FlowRun)[],
  events: readonly Omit<RunEvent, 'at'>[] = [],
): FlowRun => {
  const out: Mutable<FlowRun> = { ...run, ...changes, updatedAt: now, revision: run.revision + 1 };
  for (const key of drop) delete (out as Partial<FlowRun>)[key];
  if (events.length > 0) out.events = [...run.events, ...events.map((event) => ({ at: now, ...event }))];
  return out;
};

/** Saves the next state of `run`; false when another worker changed the run first (the caller re-reads). */
const save = async (deps: EngineDeps, run: FlowRun, nextRun: FlowRun): Promise<boolean> => {
  try {
    await deps.runs.save(nextRun, run.revision);
    return true;
  } catch (error) {
    if (error instanceof RevisionConflict) return false;
    throw error;
  }
};

/** The run ended: `completed`, `exited` (and why) or `failed` (and why). */
const finished = (
  run: FlowRun,
  now: number,
  status: Extract<RunStatus, 'completed' | 'exited' | 'failed'>,
  reason?: string,
  detail?: Record<string, unknown>,
  events: readonly Omit<RunEvent, 'at'>[] = [],
): FlowRun =>
  next(
    run,
    now,
    { status, expiresAt: expiresAt(now) },
    ['sending', 'waitingOn', 'waitUntil'],
    [...events, { type: status, ...(reason ? { reason } : {}), ...(detail ? { detail } : {}) }],
  );

const waitTimer = (run: FlowRun, stepId: string, at: number) => ({
  name: timerName('flow', run.storeId, `${run.id}#${stepId}`),
  at,
  payload: { v: 1 as const, kind: 'flow' as const, storeId: run.storeId, runId: run.id, step: stepId },
});

/**
 * Moves a run on as far as it can go now: through `exit_if` and email steps, up to a wait (a Scheduler timer resumes
 * it), the end, or an exit. Returns the run's status when it stopped (undefined: no such run).
 *
 * The run and its flow are read once per call and carried from step to step: every write is conditional on the run's
 * revision, so a successful write proves the copy in hand is current; a refused one re-reads both.
 */
export const advanceRun = async (
  deps: EngineDeps,
  storeId: string,
  runId: string,
  options: AdvanceOptions = {},
): Promise<RunStatus | undefined> => {
  const { resumeStepId, fresh } = options;
  let checked: { contact: Customer | undefined } | undefined = fresh ? { contact: fresh.contact } : undefined;
  let run = fresh?.run ?? (await deps.runs.get(storeId, runId));
  let flow: Flow | undefined = fresh?.flow;
  let flowRead = fresh !== undefined;
  /** Moves the run to `nextRun` unless another worker changed it first; then continues from what that one wrote. */
  const move = async (current: FlowRun, nextRun: FlowRun) => {
    if (await save(deps, current, nextRun)) {
      run = nextRun;
    } else {
      run = await deps.runs.get(storeId, runId);
      flowRead = false;
    }
  };

  for (;;) {
    if (!run || TERMINAL.has(run.status)) return run?.status;
    const current: FlowRun = run;
    const now = deps.clock.now();

    if (current.status === 'waiting') {
      if (resumeStepId === undefined || resumeStepId !== current.waitingOn) {
        // Not this wait's end (a redelivered message, or a stale timer of an earlier wait): the wait goes on. Its
        // timer is set again (same name and time: a no-op) in case the worker that saved the wait died before; not
        // once its time has passed (it fired, and its resume message is on its way).
        if (current.waitingOn !== undefined && current.waitUntil !== undefined && current.waitUntil > now) {
          await deps.timers.set(waitTimer(current, current.waitingOn, current.waitUntil));
        }
        return 'waiting';
      }
      // Consent, suppression and the flow are read afresh after a wait.
      checked = undefined;
      flowRead = false;
      await move(
        current,
        next(
          current,
          now,
          { status: 'active' },
          ['waitingOn', 'waitUntil'],
          [{ type: 'resumed', stepId: current.waitingOn }],
        ),
      );
      continue;
    }

    // On every resume (and first step): the flow must still exist and be enabled.
    if (!flowRead) {
      flow = await deps.flows.get(storeId, current.flowId);
      flowRead = true;
    }
    if (!flow) {
      await move(current, finished(current, now, 'exited', 'flow_deleted'));
      continue;
    }
    if (!flow.enabled) {
      await move(current, finished(current, now, 'exited', 'flow_disabled'));
      continue;
    }
    if (current.nextStepId === undefined) {
      await move(current, finished(current, now, 'completed'));
      continue;
    }
    const index = flow.steps.findIndex((step) => step.id === current.nextStepId);
    const step = flow.steps[index];
    if (!step) {
      // The flow was edited and the step the run was heading for is gone.
      await move(current, finished(current, now, 'exited', 'step_removed', { stepId: current.nextStepId }));
      continue;
    }
    const after = flow.steps[index + 1]?.id;
    const afterChange: Partial<FlowRun> = after !== undefined ? { nextStepId: after } : {};
    const afterDrop: (keyof FlowRun)[] = after !== undefined ? [] : ['nextStepId'];

    if (step.type === 'wait') {
      const until = now + step.seconds * 1000;
      const waiting = next(
        current,
        now,
        { status: 'waiting', waitingOn: step.id, waitUntil: until, ...afterChange },
        afterDrop,
        [{ type: 'waiting', stepId: step.id, until }],
      );
      await move(current, waiting);
      if (run !== waiting) continue;
      await deps.timers.set(waitTimer(waiting, step.id, until));
      return 'waiting';
    }

    if (step.type === 'exit_if') {
      const contact = checked
        ? checked.contact
        : await findContact(deps, storeId, current.trigger.contact, current.email);
      const verdict = await evaluate(step.condition, factsFor(deps, current.trigger, current.email, contact));
      await move(
        current,
        verdict.holds
          ? finished(current, now, 'exited', 'exit_if', { stepId: step.id, condition: step.condition })
          : next(current, now, afterChange, afterDrop),
      );
      continue;
    }

    const outcome = await sendEmailStep(
      deps,
      current,
      flow,
      step,
      { change: afterChange, drop: afterDrop },
      options,
      checked,
    );
    if (outcome === 'busy') return current.status;
    run = outcome.run ?? (await deps.runs.get(storeId, runId));
    if (!outcome.run) flowRead = false;
    // The contact was checked for this email only; a later email step (after a wait or not) checks again.
    checked = undefined;
  }
};

/**
 * Runs one email step. `busy`: another worker holds a fresh claim on it (that worker moves the run on). Otherwise the
 * run as this worker left it, or `run: undefined` when another worker changed it meanwhile (the caller re-reads).
 */
const sendEmailStep = async (
  deps: EngineDeps,
  current: FlowRun,
  flow: Flow,
  step: Extract<FlowStep, { type: 'email' }>,
  after: { change: Partial<FlowRun>; drop: (keyof FlowRun)[] },
  options: AdvanceOptions,
  checked: { readonly contact: Customer | undefined } | undefined,
): Promise<'busy' | { run: FlowRun | undefined }> => {
  let run = current;
  const { storeId } = run;
  const now = deps.clock.now();
  const claim = run.sending;
  if (claim?.stepId === step.id && now - claim.claimedAt < SEND_CLAIM_MS) return 'busy';
  /** Ends the run; `undefined` when another worker changed it first. */
  const end = async (ended: FlowRun) => ((await save(deps, run, ended)) ? { run: ended } : { run: undefined });

  // Consent and suppression may have changed during a wait: checked again right before sending (unless the trigger's
  // evaluation checked them in this same pass).
  const contact = checked ? checked.contact : await findContact(deps, storeId, run.trigger.contact, run.email);
  if (!checked) {
    if (!consentAllows(flow.consent, contact)) {
      return end(
        finished(run, now, 'exited', 'no_consent', {
          stepId: step.id,
          required: flow.consent,
          emailConsent: contact?.emailConsent?.state ?? null,
        }),
      );
    }
    if ((await deps.suppressions.suppressedAmong(storeId, [run.email])).has(run.email)) {
      return end(finished(run, now, 'exited', 'suppressed', { stepId: step.id }));
    }
  }

  // Checked when sending, not only when the flow was saved: a domain can be deleted or fail verification since.
  try {
    await deps.senders.requireVerified(storeId, step.from.email);
  } catch (error) {
    if (!isAppError(error)) throw error;
    return end(
      finished(run, now, 'failed', 'sender_not_verified', {
        stepId: step.id,
        from: step.from.email,
        error: error.message,
      }),
    );
  }

  const claimed = next(run, now, { sending: { stepId: step.id, claimedAt: now } }, []);
  if (!(await save(deps, run, claimed))) return { run: undefined };
  run = claimed;

  // Browse and cart recovery: whoever mails first about a product holds it for the cool-down.
  const products = RECOVERY_KINDS.has(run.flowKind) ? productIdsOf(run.trigger) : [];
  const windowSeconds = flow.reentry.type === 'cooldown' ? flow.reentry.seconds : RECOVERY_OVERLAP_SECONDS;
  const held: string[] = [];
  const releaseMarks = () =>
    Promise.all(held.map((productId) => deps.marks.release(storeId, run.email, productId, run.id)));
  for (const productId of products) {
    const mark = await deps.marks.claim(storeId, run.email, productId, {
      kind: run.flowKind,
      runId: run.id,
      at: now,
      notBefore: now - windowSeconds * 1000,
    });
    if (!mark.claimed) {
      await releaseMarks();
      return end(
        finished(run, now, 'exited', 'recently_mailed', {
          stepId: step.id,
          productId,
          by: mark.holder.kind,
          byRun: mark.holder.runId,
          mailedAt: mark.holder.at,
        }),
      );
    }
    held.push(productId);
  }

  const failPermanently = async (reason: string, error: unknown) => {
    await releaseMarks();
    return end(
      finished(run, deps.clock.now(), 'failed', reason, {
        stepId: step.id,
        error: (error instanceof Error ? error.message : String(error)).slice(0, 500),
      }),
    );
  };

  const store = await deps.stores.get(storeId);
  const unsubscribeUrl = await deps.unsubscribe.urlFor({ storeId, email: run.email, transmissionId: run.id });
  let rendered: Awaited<ReturnType<typeof renderEmail>>;
  try {
    rendered = await renderEmail(
      step,
      buildTemplateContext({
        trigger: run.trigger,
        contact,
        store: { id: storeId, name: store?.name ?? '' },
        unsubscribeUrl,
      }),
    );
  } catch (error) {
    if (error instanceof TemplateError) return failPermanently('render_failed', error);
    throw error;
  }

  const name = [contact?.firstName, contact?.lastName].filter(Boolean).join(' ');
  let messageId: string;
  try {
    ({ messageId } = await deps.mailer.send({
      from: step.from,
      to: { email: run.email, ...(name ? { name } : {}) },
      ...(step.replyTo ? { replyTo: [step.replyTo] } : {}),
      subject: rendered.subject,
      ...(rendered.html !== undefined ? { html: rendered.html } : {}),
      ...(rendered.text !== undefined ? { text: rendered.text } : {}),
      headers: listUnsubscribeHeaders(unsubscribeUrl),
      tags: {
        [EMAIL_TAGS.store]: storeId,
        [EMAIL_TAGS.transmission]: run.id,
        [EMAIL_TAGS.kind]: 'flow',
        [EMAIL_TAGS.flow]: run.flowId,
      },
    }));
  } catch (error) {
    if (error instanceof PermanentError) return failPermanently('send_rejected', error);
    if (options.lastAttempt) return failPermanently('send_failed', error);
    // Transient: give the claim back so the queue's retry sends, then let the queue retry.
    await save(deps, run, next(run, deps.clock.now(), {}, ['sending'])).catch(() => undefined);
    throw error;
  }

  const sentAt = deps.clock.now();
  await deps.sent.record([
    {
      messageId,
      storeId,
      transmissionId: run.id,
      kind: 'flow',
      rcptTo: run.email,
      msgFrom: step.from.email,
      flowId: run.flowId,
      sentAt,
    },
  ]);
  const emailed: Omit<RunEvent, 'at'> = { type: 'emailed', stepId: step.id, messageId };
  // The claim is ours: a conflict here can only be a concurrent no-op write; re-read and record on the fresh state.
  for (let attempt = 0; ; attempt++) {
    // The last step: emailed and completed in one write.
    const done =
      after.change.nextStepId === undefined
        ? finished(run, sentAt, 'completed', undefined, undefined, [emailed])
        : next(run, sentAt, after.change, ['sending', ...after.drop], [emailed]);
    if (await save(deps, run, done)) return { run: done };
    const fresh = await deps.runs.get(storeId, run.id);
    if (!fresh || fresh.sending?.stepId !== step.id || attempt >= 3) return { run: undefined };
    run = fresh;
  }
};

/** Handles one flows-queue message: a trigger to evaluate, or the end of a run's wait. */
export const handleFlowMessage = async (
  deps: EngineDeps & { readonly triggers: TriggerLog },
  message: FlowMessage,
  options: Pick<AdvanceOptions, 'lastAttempt'> = {},
): Promise<Record<string, unknown>> => {
  if (message.type === 'resume') {
    const status = await advanceRun(deps, message.storeId, message.runId, { ...options, resumeStepId: message.step });
    return { runId: message.runId, status: status ?? 'unknown run' };
  }
  const trigger = await deps.triggers.get(message.storeId, message.triggerId);
  // The record is written before the message is sent, so a missing one was removed (TTL): nothing to evaluate.
  if (!trigger) throw new PermanentError(`Flow trigger ${message.triggerId} is not recorded`);
  const outcome = await handleTrigger(deps, trigger, options);
  return { triggerId: trigger.id, kind: trigger.kind, ...outcome };
};
