/**
 * A flow backtest (docs/backtest.md): the store's recorded events of a period replayed through a draft flow,
 * with timers and the clock simulated and nothing sent. Times in the answer are epoch milliseconds (like the explain
 * views); the request's `from` and `to` are epoch seconds (like every timestamp the spec names in seconds).
 */

/** What one backtest may cost (docs/backtest.md "Bounds"). */
export const BACKTEST_LIMITS = {
  /** The longest period, in days. */
  maxRangeDays: 31,
  /** Events read and replayed; a period holding more answers 413. */
  maxEvents: 400_000,
  /** Runs (and skipped triggers) listed in the answer, by default and at most; the summary counts every one. */
  defaultListed: 200,
  maxListed: 2_000,
  /** Wall-clock budget of the replay: under API Gateway's 29 s, so the answer is never cut off by the gateway. */
  timeBudgetMs: 24_000,
} as const;

/**
 * Why a trigger did not become a run, or why a run ended before its last step. Open by design: the live engine's entry
 * reasons (`SKIP_REASONS`) and exit reasons (`exit_if`, `no_consent`, `suppressed`, `recently_mailed`, …) appear as
 * they are, and reasons added later (a frequency cap, quiet hours) appear as new keys without a change of shape.
 */
export type BacktestReason = string;

export interface BacktestEmail {
  readonly stepId: string;
  /** The subject rendered for this contact. */
  readonly subject: string;
  /** When it would have been sent (epoch ms). */
  readonly at: number;
}

export interface BacktestRecovery {
  readonly orderId: string;
  readonly stepId?: string;
  readonly currency: string;
  /** The order's total, as a decimal string. */
  readonly amount: string;
  readonly at: number;
}

export interface BacktestRun {
  /** The run id the live engine would give it (same store, flow and trigger: same id). */
  readonly runId: string;
  readonly email: string;
  readonly triggerId: string;
  readonly subject: { readonly type: string; readonly id: string };
  readonly enteredAt: number;
  /** `completed`, `exited`, `failed`, or `waiting` (still waiting when the period ended). */
  readonly status: string;
  readonly emails: readonly BacktestEmail[];
  /** Why it ended early (`exited`/`failed`), at which step. */
  readonly exit?: { readonly reason: BacktestReason; readonly stepId?: string; readonly at: number };
  /** A run still waiting at the end of the period: the end of its wait, and the step after it. */
  readonly waitingUntil?: number;
  readonly nextStepId?: string;
  /** Emails put off by quiet hours or the frequency cap (docs/smart-sending.md): when, why, and until when. */
  readonly delays?: readonly {
    readonly stepId: string;
    readonly reason: string;
    readonly at: number;
    readonly until: number;
  }[];
  readonly recovered: readonly BacktestRecovery[];
}

export interface BacktestSkip {
  readonly triggerId: string;
  readonly email?: string;
  readonly subject: { readonly type: string; readonly id: string };
  readonly at: number;
  readonly reason: BacktestReason;
  readonly detail?: Readonly<Record<string, unknown>>;
}

export interface BacktestSummary {
  /** Triggers of the flow's kind evaluated against it. */
  readonly triggers: number;
  readonly entered: number;
  /** Emails that would have been sent, and to how many addresses. */
  readonly emails: number;
  readonly contactsEmailed: number;
  /** Triggers that did not enter, by reason. */
  readonly skipped: Readonly<Record<BacktestReason, number>>;
  /** Runs that ended before their last step, by reason (exit_if, no_consent, suppressed, …). */
  readonly exited: Readonly<Record<BacktestReason, number>>;
  /** Emails deferred (quiet_hours, frequency_cap), by reason; a run deferred twice counts twice. */
  readonly delayed: Readonly<Record<string, number>>;
  readonly completed: number;
  /** Runs still waiting when the period ended. */
  readonly waiting: number;
  /** Orders paid with the token of a cart or checkout the flow emailed before (docs/attribution.md "Recovered"). */
  readonly recovered: { readonly orders: number; readonly revenue: Readonly<Record<string, string>> };
}

export interface BacktestAnswer {
  readonly flowId: string;
  readonly trigger: string;
  /** The period, epoch seconds, as asked. */
  readonly from: number;
  readonly to: number;
  readonly replayed: { readonly events: number; readonly timers: number; readonly failedEvents: number };
  readonly summary: BacktestSummary;
  readonly runs: readonly BacktestRun[];
  readonly skipped: readonly BacktestSkip[];
  /** More runs or skipped triggers than `limit`: the lists hold the first ones in time order. */
  readonly truncated: boolean;
  /** How long the replay took (ms of wall-clock time). */
  readonly tookMs: number;
}
