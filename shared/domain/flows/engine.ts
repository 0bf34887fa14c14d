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

/** Between the steps of a trigger whose runs start in steps: the budget's second. */
const STEP_MS = 1000;

/** SQS's longest delay: a trigger reserved further ahead waits in hops of it. */
const MAX_DELAY_SECONDS = 900;

/** Seconds from `now` until `at`, as an SQS delay (rounded up, so the trigger never comes back early; at most 900). */
const delayUntil = (at: number, now: number) => Math.min(MAX_DELAY_SECONDS, Math.max(1, Math.ceil((at - now) / 1000)));

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
  const { reservedAt, after } = message;
  const now = deps.clock.now();
  if (reservedAt !== undefined && reservedAt > now && deps.flowQueue) {
    // Reserved further ahead than one SQS delay: another hop, keeping its place.
    await deps.flowQueue.trigger(message.storeId, message.triggerId, delayUntil(reservedAt, now), reservedAt, after);
    return { triggerId: trigger.id, kind: trigger.kind, deferredUntil: reservedAt };
  }
  try {
    // With a queue to come back on, a trigger entering more flows than the budget's second starts them in steps.
    const slice = deps.flowQueue ? deps.admission?.slice : undefined;
    const outcome = await handleTrigger(deps, trigger, {
      ...options,
      admitted: reservedAt !== undefined,
      ...(slice !== undefined ? { slice } : {}),
      ...(after !== undefined ? { after } : {}),
    });
    if (outcome.continueAfter !== undefined && deps.flowQueue) {
      // The next step a second later (its starts are reserved already: it carries a reservation, so it asks no more).
      const next = now + STEP_MS;
      await deps.flowQueue.trigger(
        message.storeId,
        message.triggerId,
        delayUntil(next, now),
        next,
        outcome.continueAfter,
      );
    }
    return { triggerId: trigger.id, kind: trigger.kind, ...outcome };
  } catch (error) {
    if (!(error instanceof RunsDeferred) || !deps.flowQueue) throw error;
    // Over the store's run-start budget: its runs' starts are reserved; back on the queue until then (nothing of it
    // was written).
    await deps.flowQueue.trigger(message.storeId, message.triggerId, delayUntil(error.at, now), error.at);
    return { triggerId: trigger.id, kind: trigger.kind, deferredUntil: error.at };
  }
};
