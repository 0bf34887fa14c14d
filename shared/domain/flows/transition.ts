/**
 * The decision at the heart of a run, as a pure function: from the run, its flow (as read now) and the time, what
 * happens next. `advanceRun` carries the effect out (a conditional write, a timer, a condition to evaluate, an email)
 * and calls this again on the run it then holds, until the run waits, ends, or another worker holds it.
 */
import type { Timer } from '#shared/domain/timers/model.ts';
import type { AfterStep } from './email-step.ts';
import type { Flow, FlowStep } from './flow.ts';
import { type FlowRun, type RunStatus, TERMINAL } from './run.ts';
import { finished, next, waitTimer } from './run-changes.ts';
import { branchOf, locateStep } from './split.ts';

export type Transition =
  /** The run is over: nothing to do. */
  | { readonly effect: 'stop'; readonly status: RunStatus }
  /** The wait goes on; `timer`: set its timer again (same name and time: a no-op when it exists). */
  | { readonly effect: 'keep_waiting'; readonly timer?: Timer }
  /** Save `next` and go on; `refresh`: the run resumed after a wait, so its flow and contact are read afresh. */
  | { readonly effect: 'save'; readonly next: FlowRun; readonly refresh?: boolean }
  /** Save the waiting run `next`, then set the wait's timer. */
  | { readonly effect: 'wait'; readonly next: FlowRun; readonly timer: Timer }
  /** Evaluate the step's condition on the contact's facts: save `exited` when it holds, `passed` when it does not. */
  | {
      readonly effect: 'exit_if';
      readonly step: Extract<FlowStep, { type: 'exit_if' }>;
      readonly exited: FlowRun;
      readonly passed: FlowRun;
    }
  /** Run the email step; `after` is how the run moves on once it is sent. */
  | {
      readonly effect: 'email';
      readonly flow: Flow;
      readonly step: Extract<FlowStep, { type: 'email' }>;
      readonly after: AfterStep;
    };

/**
 * What happens next to `run` at `now`. `flow` is the run's flow as read now (`undefined`: deleted; not read for a
 * waiting run). `resumeStepId` is the wait step whose timer fired, when this pass is a resume.
 */
export const transition = (run: FlowRun, flow: Flow | undefined, now: number, resumeStepId?: string): Transition => {
  if (TERMINAL.has(run.status)) return { effect: 'stop', status: run.status };

  if (run.status === 'waiting') {
    if (resumeStepId === undefined || resumeStepId !== run.waitingOn) {
      // Not this wait's end (a redelivered message, or a stale timer of an earlier wait): the wait goes on. Its timer is
      // set again in case the worker that saved the wait died before; not once its time has passed (it fired, and its
      // resume message is on its way).
      return run.waitingOn !== undefined && run.waitUntil !== undefined && run.waitUntil > now
        ? { effect: 'keep_waiting', timer: waitTimer(run, run.waitingOn, run.waitUntil) }
        : { effect: 'keep_waiting' };
    }
    // Consent, suppression and the flow are read afresh after a wait.
    return {
      effect: 'save',
      refresh: true,
      next: next(
        run,
        now,
        { status: 'active' },
        ['waitingOn', 'waitUntil'],
        [{ type: 'resumed', stepId: run.waitingOn }],
      ),
    };
  }

  // On every resume (and first step): the flow must still exist and be enabled.
  if (!flow) return { effect: 'save', next: finished(run, now, 'exited', 'flow_deleted') };
  if (!flow.enabled) return { effect: 'save', next: finished(run, now, 'exited', 'flow_disabled') };
  if (run.nextStepId === undefined) return { effect: 'save', next: finished(run, now, 'completed') };
  const located = locateStep(flow.steps, run.nextStepId);
  if (!located) {
    // The flow was edited and the step the run was heading for is gone.
    return { effect: 'save', next: finished(run, now, 'exited', 'step_removed', { stepId: run.nextStepId }) };
  }
  const { step, following } = located;
  const after: AfterStep =
    following !== undefined ? { change: { nextStepId: following }, drop: [] } : { change: {}, drop: ['nextStepId'] };

  switch (step.type) {
    case 'wait': {
      const until = now + step.seconds * 1000;
      const waiting = next(
        run,
        now,
        { status: 'waiting', waitingOn: step.id, waitUntil: until, ...after.change },
        after.drop,
        [{ type: 'waiting', stepId: step.id, until }],
      );
      return { effect: 'wait', next: waiting, timer: waitTimer(waiting, step.id, until) };
    }
    case 'exit_if':
      return {
        effect: 'exit_if',
        step,
        exited: finished(run, now, 'exited', 'exit_if', { stepId: step.id, condition: step.condition }),
        passed: next(run, now, after.change, after.drop),
      };
    case 'email':
      return { effect: 'email', flow, step, after };
    case 'split': {
      // The group decided at entry names the branch; a run that entered before the split was added draws it now
      // (the same hash, so the same answer).
      const branch = step.branches.find((b) => b.id === run.group) ?? branchOf(flow.id, step, run.email);
      const first = branch.steps[0];
      if (!first) return { effect: 'save', next: finished(run, now, 'completed') };
      return {
        effect: 'save',
        next: next(
          run,
          now,
          { nextStepId: first.id, group: branch.id },
          [],
          [{ type: 'split', stepId: step.id, branch: branch.id }],
        ),
      };
    }
  }
};

/**
 * A new run as it is created: already waiting on its first step when that is a wait (its timer is set right after),
 * or already holding the send claim on its first step when that is an email, so the creating write also does what
 * the first step's own write would (one write fewer per run). Otherwise the run as given.
 */
export const startingRun = (run: FlowRun, flow: Flow, now: number): FlowRun => {
  const decided = transition(run, flow, now);
  if (decided.effect === 'wait') return decided.next;
  if (decided.effect === 'email') return next(run, now, { sending: { stepId: decided.step.id, claimedAt: now } }, []);
  return run;
};
