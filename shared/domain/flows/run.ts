/**
 * Flow runs and the explain records: what the engine writes so that "why did (or didn't) this contact get the email?"
 * has an answer. A run is one flow walked for one trigger; an evaluation is one trigger checked against one flow.
 */
import { createHash } from 'node:crypto';
import type { ConditionOperator } from './flow.ts';
import type { FlowKind, FlowTrigger } from './trigger.ts';

/** Why a trigger did not start a run of a flow (see docs/flows.md "How runs work"). */
export const SKIP_REASONS = [
  'flow_disabled',
  'no_matching_flow',
  'condition_false',
  'no_consent',
  'suppressed',
  'no_email',
  'ignore_flow',
  'reentry',
  'unconfirmed_address',
] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

/** The condition that decided a `condition_false` (or an `exit_if`), with the value the engine saw. */
export interface ConditionVerdict {
  readonly field: string;
  readonly op: ConditionOperator;
  readonly expected?: string | number | boolean;
  /** The value seen, as JSON-safe data (long values are cut, see `conditions.ts`). */
  readonly value?: unknown;
}

export interface FlowEvaluation {
  readonly storeId: string;
  /** The flow evaluated; absent when no flow matched (`no_matching_flow` for a kind without flows). */
  readonly flowId?: string;
  readonly triggerId: string;
  readonly triggerKind: FlowKind;
  readonly subject: FlowTrigger['subject'];
  /** Lower-cased; absent when the trigger carried none (`no_email`). */
  readonly email?: string;
  readonly outcome: 'entered' | 'skipped';
  readonly reason?: SkipReason;
  /** What the reason is about: the condition (condition_false), consent state, re-entry policy, …. */
  readonly detail?: Readonly<Record<string, unknown>>;
  /** The run started (`entered`). */
  readonly runId?: string;
  /** The trigger's time (epoch ms): evaluations of one trigger sort together whenever they are recorded. */
  readonly at: number;
  /** When this evaluation was made (epoch ms). */
  readonly evaluatedAt: number;
}

export type RunStatus = 'active' | 'waiting' | 'completed' | 'exited' | 'failed';
export const TERMINAL: ReadonlySet<RunStatus> = new Set(['completed', 'exited', 'failed']);

/** One state change of a run, in order. */
export interface RunEvent {
  readonly at: number;
  readonly type:
    | 'entered'
    | 'waiting'
    | 'resumed'
    | 'split'
    | 'deferred'
    | 'emailed'
    | 'exited'
    | 'completed'
    | 'failed';
  readonly stepId?: string;
  /** The branch the run took (`split`). */
  readonly branch?: string;
  /** SES message id (`emailed`). */
  readonly messageId?: string;
  /** End of the wait (`waiting`), or when a `deferred` email is due again (quiet hours, frequency cap), epoch ms. */
  readonly until?: number;
  /**
   * Why the run exited or failed (`exit_if`, `flow_disabled`, `no_consent`, `frequency_cap`, `send_rejected`, …), or
   * why an email was `deferred` (`quiet_hours`, `frequency_cap`).
   */
  readonly reason?: string;
  readonly detail?: Readonly<Record<string, unknown>>;
}

export interface FlowRun {
  readonly storeId: string;
  /** Deterministic per flow and trigger (`runIdOf`), and SES-tag safe: it is the emails' transmission id. */
  readonly id: string;
  readonly flowId: string;
  readonly flowKind: FlowKind;
  /** The trigger as fired: conditions and templates read it at every step. */
  readonly trigger: FlowTrigger;
  /** Lower-cased recipient. */
  readonly email: string;
  readonly status: RunStatus;
  /**
   * The A/B group the run is measured in, decided at entry (`split.ts` `groupOf`): `holdout`, a branch id of the
   * flow's split, or `treated`; absent for a flow with neither a split nor a holdout.
   */
  readonly group?: string;
  /** The step to run next (by id, so an edited flow continues where it makes sense); absent: none left. */
  readonly nextStepId?: string;
  /**
   * The wait step the run is waiting on (`waiting`), and when that wait ends (epoch ms); an email step deferred by
   * quiet hours or the frequency cap waits on its own id (`nextStepId` is then that email step).
   */
  readonly waitingOn?: string;
  readonly waitUntil?: number;
  /** An email step being sent: set before the Mailer call, cleared with its result (see `email-step.ts`). */
  readonly sending?: { readonly stepId: string; readonly claimedAt: number };
  readonly events: readonly RunEvent[];
  readonly startedAt: number;
  readonly updatedAt: number;
  readonly revision: number;
  /** Epoch seconds after which the table's TTL removes a finished run. */
  readonly expiresAt?: number;
}

/** How long finished runs and evaluations stay listed. */
export const EXPLAIN_RETENTION_SECONDS = 90 * 24 * 3600;

/**
 * `run_` + 32 hex of SHA-256(store, flow, trigger): the same trigger never starts two runs of one flow, and the id is
 * within SES's tag alphabet (`[A-Za-z0-9_-]`), so it travels as the emails' transmission id.
 */
export const runIdOf = (storeId: string, flowId: string, triggerId: string): string =>
  `run_${createHash('sha256').update(`${storeId}\n${flowId}\n${triggerId}`).digest('hex').slice(0, 32)}`;

/** A run as the explain routes show it. */
export const runRecord = (run: FlowRun) => ({
  id: run.id,
  flowId: run.flowId,
  status: run.status,
  ...(run.group !== undefined ? { group: run.group } : {}),
  email: run.email,
  triggerId: run.trigger.id,
  triggerKind: run.trigger.kind,
  subject: run.trigger.subject,
  startedAt: run.startedAt,
  updatedAt: run.updatedAt,
  ...(run.nextStepId !== undefined && run.status !== 'completed' ? { nextStepId: run.nextStepId } : {}),
  ...(run.waitUntil !== undefined && run.status === 'waiting' ? { waitUntil: run.waitUntil } : {}),
  events: run.events,
});

/** An evaluation as the explain routes show it, with its run's current state when it entered. */
export const evaluationRecord = (evaluation: FlowEvaluation, run: FlowRun | undefined) => ({
  flowId: evaluation.flowId ?? null,
  triggerId: evaluation.triggerId,
  triggerKind: evaluation.triggerKind,
  subject: evaluation.subject,
  email: evaluation.email ?? null,
  at: evaluation.at,
  evaluatedAt: evaluation.evaluatedAt,
  outcome: evaluation.outcome,
  ...(evaluation.reason ? { reason: evaluation.reason } : {}),
  ...(evaluation.detail ? { detail: evaluation.detail } : {}),
  ...(evaluation.runId ? { runId: evaluation.runId } : {}),
  ...(run ? { run: runRecord(run) } : {}),
});
