/** The backtest's answer, from what the replay saw: per-run details in time order, and a summary that counts them all. */
import { type RunEvent, TERMINAL } from '#shared/domain/flows/run.ts';
import type { BacktestRecovery, BacktestRun, BacktestSkip, BacktestSummary } from './model.ts';
import type { ReplayResult } from './replay.ts';

const bump = (counts: Record<string, number>, key: string) => {
  counts[key] = (counts[key] ?? 0) + 1;
};

/** Sums per currency, as decimal strings with two places (amounts are summed in cents, never converted). */
const revenueOf = (recoveries: readonly { currency: string; amount: number }[]): Record<string, string> => {
  const cents = new Map<string, number>();
  for (const r of recoveries) cents.set(r.currency, (cents.get(r.currency) ?? 0) + Math.round(r.amount * 100));
  return Object.fromEntries([...cents].map(([currency, sum]) => [currency, (sum / 100).toFixed(2)]));
};

/** Why a run ended early, at which step (the engine keeps the step in the event, or in its detail). */
const exitOf = (end: RunEvent, status: string) => {
  const stepId = end.stepId ?? end.detail?.stepId;
  return { reason: end.reason ?? status, ...(typeof stepId === 'string' ? { stepId } : {}), at: end.at };
};

export const summarise = (result: ReplayResult, flowId: string, limit: number) => {
  const recoveredByRun = new Map<string, BacktestRecovery[]>();
  const ours = result.recovered.filter((r) => r.touch.kind === 'flow' && r.touch.flowId === flowId);
  for (const r of ours) {
    if (r.touch.kind !== 'flow') continue;
    const list = recoveredByRun.get(r.touch.runId) ?? [];
    list.push({
      orderId: r.orderId,
      stepId: r.touch.stepId,
      currency: r.currency,
      amount: r.amount.toFixed(2),
      at: r.at,
    });
    recoveredByRun.set(r.touch.runId, list);
  }

  const exited: Record<string, number> = {};
  const delayed: Record<string, number> = {};
  let completed = 0;
  let waiting = 0;
  let emails = 0;
  const emailed = new Set<string>();
  const runs: BacktestRun[] = result.runs
    .sort((a, b) => a.startedAt - b.startedAt || a.id.localeCompare(b.id))
    .map((run) => {
      const sent = run.events.flatMap((event) => {
        const email = event.type === 'emailed' && event.messageId ? result.emails.get(event.messageId) : undefined;
        return email ? [{ stepId: event.stepId ?? '', subject: email.subject, at: event.at }] : [];
      });
      emails += sent.length;
      if (sent.length > 0) emailed.add(run.email);
      const delays = run.events.flatMap((event) =>
        event.type === 'deferred'
          ? [{ stepId: event.stepId ?? '', reason: event.reason ?? 'deferred', at: event.at, until: event.until ?? 0 }]
          : [],
      );
      for (const delay of delays) bump(delayed, delay.reason);
      const end = run.events.findLast((event) => event.type === 'exited' || event.type === 'failed');
      if (run.status === 'completed') completed++;
      if (!TERMINAL.has(run.status)) waiting++;
      if (end && (run.status === 'exited' || run.status === 'failed')) bump(exited, end.reason ?? run.status);
      return {
        runId: run.id,
        email: run.email,
        triggerId: run.trigger.id,
        subject: run.trigger.subject,
        enteredAt: run.startedAt,
        status: TERMINAL.has(run.status) ? run.status : 'waiting',
        emails: sent,
        ...(end && TERMINAL.has(run.status) && run.status !== 'completed' ? { exit: exitOf(end, run.status) } : {}),
        ...(!TERMINAL.has(run.status) && run.waitUntil !== undefined ? { waitingUntil: run.waitUntil } : {}),
        ...(!TERMINAL.has(run.status) && run.nextStepId !== undefined ? { nextStepId: run.nextStepId } : {}),
        ...(delays.length > 0 ? { delays } : {}),
        recovered: recoveredByRun.get(run.id) ?? [],
      };
    });

  const skippedCounts: Record<string, number> = {};
  const skipped: BacktestSkip[] = result.evaluations
    .filter((evaluation) => evaluation.outcome === 'skipped')
    .sort((a, b) => a.at - b.at || a.triggerId.localeCompare(b.triggerId))
    .map((evaluation) => {
      const reason = evaluation.reason ?? 'unknown';
      bump(skippedCounts, reason);
      return {
        triggerId: evaluation.triggerId,
        ...(evaluation.email ? { email: evaluation.email } : {}),
        subject: evaluation.subject,
        at: evaluation.at,
        reason,
        ...(evaluation.detail ? { detail: evaluation.detail } : {}),
      };
    });

  const summary: BacktestSummary = {
    triggers: result.evaluations.length,
    entered: runs.length,
    emails,
    contactsEmailed: emailed.size,
    skipped: skippedCounts,
    exited,
    delayed,
    completed,
    waiting,
    recovered: { orders: ours.length, revenue: revenueOf(ours) },
  };
  return {
    summary,
    runs: runs.slice(0, limit),
    skipped: skipped.slice(0, limit),
    truncated: runs.length > limit || skipped.length > limit,
  };
};
