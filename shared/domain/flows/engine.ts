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
 *
 * The pieces: `enter-run.ts` (trigger → runs), `transition.ts` (the pure decision of a run's next step),
 * `advance-run.ts` (carrying it out), `email-step.ts` (claim, send, complete), `contact-facts.ts` and `facts.ts`
 * (who the run is about, and what conditions read), `run-changes.ts` (a run's next state and its conditional write).
 */

import { PermanentError } from '#shared/errors.ts';
import { type AdvanceOptions, advanceRun } from './advance-run.ts';
import { type EnterDeps, handleTrigger, RunsDeferred } from './enter-run.ts';
import type { FlowMessage } from './flow-message.ts';
import type { FlowQueue, TriggerLog } from './ports.ts';

/** How long a trigger over its store's run-start budget first waits before it is evaluated again. */
export const RUN_DEFER_SECONDS = 2;
/** The longest it waits: each further deferral doubles the wait up to this. */
export const RUN_DEFER_MAX_SECONDS = 64;

/**
 * The wait after the `deferrals`-th deferral (1 for the first): 2, 4, 8 … 64 s. A store over its budget for long (a
 * flood of triggers of many flows) has a backlog re-evaluated ever more rarely, not every 2 s, so its deferred
 * triggers cost the shared flow worker little; a burst that fits in the next seconds still starts within them.
 */
export const deferSeconds = (deferrals: number): number =>
  Math.min(RUN_DEFER_MAX_SECONDS, RUN_DEFER_SECONDS * 2 ** Math.max(0, Math.min(deferrals, 16) - 1));

/** Everything the engine reads and writes: entering runs (which advances them) needs every port of the flows area. */
export type EngineDeps = EnterDeps;

/** Handles one flows-queue message: a trigger to evaluate, or the end of a run's wait. */
export const handleFlowMessage = async (
  deps: EngineDeps & { readonly triggers: TriggerLog; readonly flowQueue?: Pick<FlowQueue, 'trigger'> },
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
  try {
    const outcome = await handleTrigger(deps, trigger, options);
    return { triggerId: trigger.id, kind: trigger.kind, ...outcome };
  } catch (error) {
    if (!(error instanceof RunsDeferred) || !deps.flowQueue) throw error;
    // Over the store's run-start budget: back on the queue for a while (nothing of it was written).
    const deferrals = (message.deferrals ?? 0) + 1;
    const seconds = deferSeconds(deferrals);
    await deps.flowQueue.trigger(message.storeId, message.triggerId, seconds, deferrals);
    return { triggerId: trigger.id, kind: trigger.kind, deferredSeconds: seconds, deferrals };
  }
};
