/**
 * The email step of a run: claim, send, complete. The step is claimed on the run (`sending`) before the Mailer call and
 * completed with the message id after it. A transient failure releases the claim (the retry sends); a claim left by a
 * crashed worker is taken over once it is older than the queue's visibility timeout. So an email is sent twice only if
 * a worker dies between SES accepting the message and the one write that records it.
 */

import { persistAfterSend } from '#shared/domain/after-send.ts';
import { flowEmailed } from '#shared/domain/attribution/attribute.ts';
import type { AttributionStore } from '#shared/domain/attribution/ports.ts';
import type { Clock } from '#shared/domain/clock.ts';
import type { Customer } from '#shared/domain/customers/model.ts';
import { EMAIL_TAGS, listUnsubscribeHeaders } from '#shared/domain/email/model.ts';
import { type SendClass, sendDay } from '#shared/domain/email/pacing.ts';
import type {
  DailySendCap,
  DailySends,
  Mailer,
  RecentSends,
  SendPacer,
  SentMessages,
  Suppressions,
} from '#shared/domain/email/ports.ts';
import type { StandingCheck } from '#shared/domain/email/reputation.ts';
import { capVerdict, placeOf } from '#shared/domain/email/smart-sending.ts';
import type { Store } from '#shared/domain/stores/model.ts';
import { isAppError, PermanentError } from '#shared/errors.ts';
import { type ContactLookup, consentAllows, findContact } from './contact-facts.ts';
import { productIdsOf } from './facts.ts';
import type { Flow, FlowStep } from './flow.ts';
import type { FlowRunRepository, RecoveryMarks, UnsubscribeUrls } from './ports.ts';
import { renderEmail, TemplateError } from './render.ts';
import type { FlowRun, RunEvent } from './run.ts';
import { finished, next, saveRun } from './run-changes.ts';
import { decidedAt, type SmartSendDecision, smartSendDecision, waitingForCapSince } from './smart-send.ts';
import { buildTemplateContext } from './template-context.ts';
import type { FlowKind } from './trigger.ts';

export interface EmailStepDeps extends ContactLookup {
  readonly runs: Pick<FlowRunRepository, 'get' | 'save'>;
  readonly marks: RecoveryMarks;
  readonly stores: { get(storeId: string): Promise<Store | undefined> };
  readonly suppressions: Pick<Suppressions, 'suppressedAmong'>;
  readonly mailer: Pick<Mailer, 'send'>;
  readonly sent: Pick<SentMessages, 'record'>;
  /** What the emails earned (`shared/domain/attribution`). */
  readonly attribution: AttributionStore;
  readonly unsubscribe: UnsubscribeUrls;
  /**
   * The store's own verified sending domains. SES identities are account-wide, so without this check a store could
   * send flow email from another store's (DKIM-signed) domain. Throws a validation or conflict `AppError` when the
   * address's domain is not a verified sender of the store.
   */
  readonly senders: { requireVerified(storeId: string, fromEmail: string): Promise<unknown> };
  /** Every email takes a slot of the account's SES rate (transactional first, a fair share per store: `pacing.ts`). */
  readonly pacer: SendPacer;
  readonly sendRatePerSecond: number;
  /** Marketing flow emails count against the store's daily cap (`dailySendCap`, 0 for none). */
  readonly dailySends: DailySends;
  readonly dailySendCap: DailySendCap;
  /** The bounce and complaint guard: a paused store's marketing flow email exits `sending_paused`. */
  readonly standing: StandingCheck;
  /** Recent marketing sends per contact: the store's frequency cap reads them, every marketing email adds to them. */
  readonly recentSends: RecentSends;
  readonly onPaused?: (storeId: string) => void;
  /** Told when a stale send claim is taken over (the `SendClaimsRetaken` metric). */
  readonly onRetaken?: () => void;
  readonly clock: Clock;
  /** Waits for a send slot (default: a timer). */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Renders the step for the contact: `renderEmail` unless replaced (a backtest renders only the subject it reports). */
  readonly render?: typeof renderEmail;
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** How a run moves on once its email step is done: the fields to set and the ones to drop. */
export interface AfterStep {
  readonly change: Partial<FlowRun>;
  readonly drop: readonly (keyof FlowRun)[];
}

/**
 * An email claim older than this is taken over: its worker died. Longer than the flow worker's timeout and shorter
 * than the queue's visibility timeout (360 s), so the redelivery of a dead worker's message finds it stale.
 */
export const SEND_CLAIM_MS = 150_000;

/** Browse and cart recovery do not both mail one address about one product within this window (or the flow's cool-down). */
export const RECOVERY_OVERLAP_SECONDS = 24 * 3600;

const RECOVERY_KINDS: ReadonlySet<FlowKind> = new Set(['abandoned_cart', 'browse_recovery']);

/**
 * Runs one email step. `busy`: another worker holds a fresh claim on it (that worker moves the run on). Otherwise the
 * run as this worker left it, or `run: undefined` when another worker changed it meanwhile (the caller re-reads).
 */
export const sendEmailStep = async (
  deps: EmailStepDeps,
  current: FlowRun,
  flow: Flow,
  step: Extract<FlowStep, { type: 'email' }>,
  after: AfterStep,
  options: { readonly lastAttempt?: boolean },
  checked: { readonly contact: Customer | undefined; readonly ownsClaim?: boolean } | undefined,
): Promise<'busy' | { run: FlowRun | undefined }> => {
  let run = current;
  const { storeId } = run;
  const now = deps.clock.now();
  const claim = run.sending;
  // `ownsClaim`: this pass created the run already holding the claim (one write fewer than create, then claim).
  const ownsClaim = checked?.ownsClaim === true && claim?.stepId === step.id;
  if (!ownsClaim && claim?.stepId === step.id && now - claim.claimedAt < SEND_CLAIM_MS) return 'busy';
  /** Ends the run; `undefined` when another worker changed it first. */
  const end = async (ended: FlowRun) => ((await saveRun(deps.runs, run, ended)) ? { run: ended } : { run: undefined });

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

  // Transactional flows (consent not required: order messages, back-in-stock) go first and have no daily cap.
  const sendClass: SendClass = flow.consent === 'transactional' ? 'transactional' : 'marketing';
  if (sendClass === 'marketing') {
    const paused = await deps.standing(storeId);
    if (paused) {
      deps.onPaused?.(storeId);
      return end(finished(run, now, 'exited', 'sending_paused', { stepId: step.id, reason: paused }));
    }
  }
  // Smart sending (docs/smart-sending.md): quiet hours in the recipient's zone, then the store's frequency cap.
  const store = await deps.stores.get(storeId);
  const settings = sendClass === 'marketing' ? store?.smartSending : undefined;
  const sendId = `${run.id}#${step.id}`;
  /** The run's end or wait when `decision` holds the email back; undefined when it lets it go. */
  const holdBack = async (decision: SmartSendDecision) => {
    if (decision.kind === 'skip') {
      return end(finished(run, now, 'exited', decision.reason, { stepId: step.id, ...decision.detail }));
    }
    if (decision.kind === 'send') return undefined;
    // The run waits on the email step itself (its timer resumes it there; `advanceRun` sets the timer).
    const { until, reason, detail } = decision;
    const deferred = next(
      run,
      now,
      { status: 'waiting', waitingOn: step.id, waitUntil: until, nextStepId: step.id },
      ['sending'],
      [{ type: 'deferred', stepId: step.id, until, reason, detail }],
    );
    return (await saveRun(deps.runs, run, deferred)) ? { run: deferred } : { run: undefined };
  };
  if (sendClass === 'marketing') {
    const judgedAt = decidedAt(run, step.id, now);
    const judge = (recentSends: readonly number[]) =>
      smartSendDecision({
        settings,
        place: placeOf(contact),
        recentSends,
        onFrequencyCap: flow.onFrequencyCap ?? 'skip',
        waitingForCapSince: waitingForCapSince(run, step.id),
        now: judgedAt,
      });
    // Quiet hours first: an email due in the window waits for its end whatever the cap says.
    const quiet = await holdBack(judge([]));
    if (quiet) return quiet;
    // Then the cap, as the email takes its place among the contact's recent sends (counted whether or not the store
    // has a cap now: a cap set later sees it). One conditional write, so of two emails decided at once only one passes
    // the cap; a retried email finds its own place taken and is not capped by it.
    const taken = await deps.recentSends.take(
      storeId,
      run.email,
      { id: sendId, at: now },
      (times) => capVerdict(settings?.frequencyCap, times, judgedAt).allowed,
    );
    if (!taken.taken) {
      const held = await holdBack(judge(taken.times));
      if (held) return held;
    }
  }
  /** Gives the email's place among the recent sends back: it was not sent after all. */
  const releaseSend = async () => {
    if (sendClass === 'marketing') await deps.recentSends.release(storeId, run.email, sendId);
  };

  const cap = sendClass === 'marketing' ? await deps.dailySendCap(storeId) : 0;
  if (cap > 0 && !(await deps.dailySends.take(storeId, sendDay(now), 1, cap))) {
    await releaseSend();
    return end(finished(run, now, 'exited', 'daily_send_cap', { stepId: step.id, cap }));
  }

  if (!ownsClaim) {
    // A stale claim on this step: its worker died after claiming, maybe after SES took the email (counted).
    if (claim?.stepId === step.id) deps.onRetaken?.();
    const claimed = next(run, now, { sending: { stepId: step.id, claimedAt: now } }, []);
    if (!(await saveRun(deps.runs, run, claimed))) return { run: undefined };
    run = claimed;
  }

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
      await releaseSend();
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
    await releaseSend();
    return end(
      finished(run, deps.clock.now(), 'failed', reason, {
        stepId: step.id,
        error: (error instanceof Error ? error.message : String(error)).slice(0, 500),
      }),
    );
  };

  const unsubscribeUrl = await deps.unsubscribe.urlFor({ storeId, email: run.email, transmissionId: run.id });
  let rendered: Awaited<ReturnType<typeof renderEmail>>;
  try {
    rendered = await (deps.render ?? renderEmail)(
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
    const slot = await deps.pacer.reserve(1, deps.sendRatePerSecond, { storeId, sendClass });
    if ('retryInSeconds' in slot) throw new Error('No SES send slot free within the pacing horizon; retrying');
    const wait = slot.at - deps.clock.now();
    if (wait > 0) await (deps.sleep ?? pause)(wait);
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
    await saveRun(deps.runs, run, next(run, deps.clock.now(), {}, ['sending'])).catch(() => undefined);
    throw error;
  }

  const sentAt = deps.clock.now();
  // SES has the email: retry the record before anything could give the claim back and send it again.
  const recorded = persistAfterSend(() =>
    deps.sent.record([
      {
        messageId,
        storeId,
        transmissionId: run.id,
        kind: 'flow',
        rcptTo: run.email,
        msgFrom: step.from.email,
        flowId: run.flowId,
        stepId: step.id,
        sentAt,
        subject: rendered.subject,
      },
    ]),
  );
  const emailed: Omit<RunEvent, 'at'> = { type: 'emailed', stepId: step.id, messageId };
  /** The run emailed: completed in the same write when this was its last step. */
  const done = (from: FlowRun) =>
    after.change.nextStepId === undefined
      ? finished(from, sentAt, 'completed', undefined, undefined, [emailed])
      : next(from, sentAt, after.change, ['sending', ...after.drop], [emailed]);
  /** Counted for the flow's stats, and remembered for its cart or checkout (a recovered order names it). */
  const count = () =>
    persistAfterSend(() =>
      flowEmailed(deps.attribution, storeId, run.trigger.subject, {
        kind: 'flow',
        flowId: run.flowId,
        stepId: step.id,
        runId: run.id,
        at: sentAt,
      }),
    );
  // The claim is this worker's and fresh (half the time after which another worker may take it over, itself longer
  // than the worker's timeout): no other worker writes the run, so it moves on without a revision check, written with
  // the batch's sent-message records (a conditional write of its own per email).
  const claimed = run.sending;
  if (claimed?.stepId === step.id && sentAt - claimed.claimedAt < SEND_CLAIM_MS / 2) {
    const moved = done(run);
    await Promise.all([recorded, persistAfterSend(() => deps.runs.save(moved, run.revision, { claimed: true }))]);
    await count();
    return { run: moved };
  }
  await recorded;
  await count();
  // A claim this old: a conflict here can only be a concurrent no-op write; re-read and record on the fresh state.
  for (let attempt = 0; ; attempt++) {
    const moved = done(run);
    if (await persistAfterSend(() => saveRun(deps.runs, run, moved))) return { run: moved };
    const fresh = await persistAfterSend(() => deps.runs.get(storeId, run.id));
    if (!fresh || fresh.sending?.stepId !== step.id || attempt >= 3) return { run: undefined };
    run = fresh;
  }
};
