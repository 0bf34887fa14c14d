/**
 * Moving a run on: the effects of `transition` carried out, one after the other, until the run waits, ends, or
 * another worker holds it.
 */
import type { Customer } from '#shared/domain/customers/model.ts';
import type { Timer } from '#shared/domain/timers/model.ts';
import type { Timers } from '#shared/domain/timers/ports.ts';
import { WaitingRunsCapReached } from '#shared/domain/timers/wheel.ts';
import { evaluate } from './conditions.ts';
import { findContact } from './contact-facts.ts';
import { type EmailStepDeps, sendEmailStep } from './email-step.ts';
import { type FactDeps, factsFor } from './facts.ts';
import type { Flow } from './flow.ts';
import type { FlowRepository } from './ports.ts';
import { type FlowRun, type RunStatus, TERMINAL } from './run.ts';
import { finished, saveRun, waitTimer } from './run-changes.ts';
import { transition } from './transition.ts';

export interface AdvanceDeps extends EmailStepDeps, FactDeps {
  readonly flows: Pick<FlowRepository, 'get'>;
  readonly timers: Timers;
}

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

/**
 * Moves a run on as far as it can go now: through `exit_if` and email steps, up to a wait (a Scheduler timer resumes
 * it), the end, or an exit. Returns the run's status when it stopped (undefined: no such run).
 *
 * The run and its flow are read once per call and carried from step to step: every write is conditional on the run's
 * revision, so a successful write proves the copy in hand is current; a refused one re-reads both.
 */
export const advanceRun = async (
  deps: AdvanceDeps,
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
    if (await saveRun(deps.runs, current, nextRun)) {
      run = nextRun;
    } else {
      run = await deps.runs.get(storeId, runId);
      flowRead = false;
    }
  };

  /**
   * Sets the wait's timer; when the store already keeps its cap of waiting runs, the run exits `waiting_runs_cap`
   * instead (false: the loop goes on with the exited run).
   */
  const keptWaiting = async (timer: Timer): Promise<boolean> => {
    try {
      await deps.timers.set(timer);
      return true;
    } catch (error) {
      if (!(error instanceof WaitingRunsCapReached) || !run) throw error;
      const waiting = run;
      await move(waiting, finished(waiting, deps.clock.now(), 'exited', 'waiting_runs_cap', { cap: error.cap }));
      return false;
    }
  };

  // A run created already waiting on its first step (`startingRun`): its timer is set now, whatever the clock says.
  if (fresh?.run.status === 'waiting' && fresh.run.waitingOn !== undefined && fresh.run.waitUntil !== undefined) {
    if (await keptWaiting(waitTimer(fresh.run, fresh.run.waitingOn, fresh.run.waitUntil))) return 'waiting';
  }

  for (;;) {
    if (!run) return undefined;
    const current: FlowRun = run;
    if (!flowRead && current.status !== 'waiting' && !TERMINAL.has(current.status)) {
      flow = await deps.flows.get(storeId, current.flowId);
      flowRead = true;
    }
    const decided = transition(current, flow, deps.clock.now(), resumeStepId);
    switch (decided.effect) {
      case 'stop':
        return decided.status;
      case 'keep_waiting':
        if (decided.timer && !(await keptWaiting(decided.timer))) continue;
        return 'waiting';
      case 'save':
        if (decided.refresh) {
          checked = undefined;
          flowRead = false;
        }
        await move(current, decided.next);
        continue;
      case 'wait':
        await move(current, decided.next);
        if (run !== decided.next) continue;
        if (!(await keptWaiting(decided.timer))) continue;
        return 'waiting';
      case 'exit_if': {
        const contact = checked
          ? checked.contact
          : await findContact(deps, storeId, current.trigger.contact, current.email);
        const verdict = await evaluate(decided.step.condition, factsFor(deps, current.trigger, current.email, contact));
        await move(current, verdict.holds ? decided.exited : decided.passed);
        continue;
      }
      case 'email': {
        // A run created holding the claim on its first email (`startingRun`) sends without claiming again.
        const ownsClaim = current === fresh?.run && current.sending?.stepId === decided.step.id;
        const outcome = await sendEmailStep(
          deps,
          current,
          decided.flow,
          decided.step,
          decided.after,
          options,
          checked && ownsClaim ? { ...checked, ownsClaim } : checked,
        );
        if (outcome === 'busy') return current.status;
        run = outcome.run ?? (await deps.runs.get(storeId, runId));
        if (!outcome.run) flowRead = false;
        // Deferred by quiet hours or the frequency cap: waiting on the email step, whose timer resumes it there.
        const deferred = outcome.run;
        if (deferred?.status === 'waiting' && deferred.waitingOn === decided.step.id && deferred.waitUntil) {
          if (await keptWaiting(waitTimer(deferred, deferred.waitingOn, deferred.waitUntil))) return 'waiting';
          continue;
        }
        // The contact was checked for this email only; a later email step (after a wait or not) checks again.
        checked = undefined;
      }
    }
  }
};
