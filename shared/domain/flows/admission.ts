/**
 * A store's flow-run start budget (the operator setting `storeFlowRunsPerSecond`), kept as reservations (the generic cell rate algorithm):
 * the store's budget item holds the time its reserved runs take up to ("TAT"), each trigger adds its runs' share of a
 * second, and a trigger may start once the reservations ahead of it end within a second (the burst). A trigger over
 * the budget is told when its turn comes and put off until exactly then, holding its place: it is evaluated twice in
 * all, however long the store's backlog (a fixed window made every deferred trigger retry every few seconds, so a
 * flood of one store's triggers kept the shared flow worker busy re-reading them).
 */
import type { Clock } from '#shared/domain/clock.ts';
import type { RunAdmission } from './ports.ts';

/** Where a store's reservations are kept (atomically, across every worker). */
export interface RunBudget {
  /** Adds `costMs` to the store's reservations, starting no earlier than `now`; answers their end after it. */
  reserve(storeId: string, costMs: number, now: number): Promise<number>;
}

/** How far ahead of now the reservations may reach while a trigger still starts at once: one second's runs. */
export const BURST_MS = 1000;

/** The reservations' end after adding `costMs` to `tat` (absent: none yet) at `now`. */
export const nextTat = (tat: number | undefined, now: number, costMs: number): number =>
  Math.max(tat ?? 0, now) + costMs;

/** A trigger's runs' share of the store's seconds: `runs` of `perSecond` a second. */
export const costOf = (runs: number, perSecond: number): number => (Math.max(1, runs) * 1000) / Math.max(1, perSecond);

/**
 * When a trigger of `runs` runs may start: now (a time ≤ now) or its reserved time. The reservation is made either
 * way, so a trigger put off must not ask again (its message carries the time).
 */
export const budgetAdmission = (budget: RunBudget, clock: Clock, perSecond: number): RunAdmission => ({
  // One second's runs at a time: a trigger entering 49 flows at 5 a second starts them over ten seconds, as reserved,
  // not in one burst of some 400 writes every ten seconds.
  slice: Math.max(1, Math.floor(perSecond)),
  async admit(storeId, runs) {
    const now = clock.now();
    const cost = costOf(runs, perSecond);
    const tat = await budget.reserve(storeId, cost, now);
    // The reservations ahead of this one end at `tat - cost`; it starts once they are within the burst of now.
    return Math.max(now, Math.ceil(tat - cost - BURST_MS));
  },
});
