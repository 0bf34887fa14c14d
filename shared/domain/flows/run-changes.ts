/**
 * A run's next state, as pure functions (the run with changes applied, ended, waiting on a timer), and the one
 * conditional write that saves it: every step transition is a write on the run's revision, so of two workers one moves
 * the run on and the other re-reads it.
 */
import { RevisionConflict } from '#shared/domain/repository.ts';
import { type Timer, timerName } from '#shared/domain/timers/model.ts';
import type { FlowRunRepository } from './ports.ts';
import { EXPLAIN_RETENTION_SECONDS, type FlowRun, type RunEvent, type RunStatus } from './run.ts';

const expiresAt = (now: number) => Math.floor(now / 1000) + EXPLAIN_RETENTION_SECONDS;

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** The run with `changes` applied, the listed fields removed, events appended, and the revision moved on. */
export const next = (
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
export const saveRun = async (
  runs: Pick<FlowRunRepository, 'save'>,
  run: FlowRun,
  nextRun: FlowRun,
): Promise<boolean> => {
  try {
    await runs.save(nextRun, run.revision);
    return true;
  } catch (error) {
    if (error instanceof RevisionConflict) return false;
    throw error;
  }
};

/** The run ended: `completed`, `exited` (and why) or `failed` (and why). */
export const finished = (
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

export const waitTimer = (run: FlowRun, stepId: string, at: number): Timer => ({
  name: timerName('flow', run.storeId, `${run.id}#${stepId}`),
  at,
  payload: { v: 1 as const, kind: 'flow' as const, storeId: run.storeId, runId: run.id, step: stepId },
});
