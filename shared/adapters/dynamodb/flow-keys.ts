/**
 * Key builders of the flows area (docs/flows.md): definitions, runs, re-entry guards, explain records, the timer
 * wheel's entries, the sending guard's day counts. Spread into `keys` (`keys.ts`, where the table of every entity's
 * keys is).
 */

/** Fixed width so the string order of the sort key is the numeric order. */
export const pad = (n: number, width: number) => String(Math.max(0, Math.trunc(n))).padStart(width, '0');

export const FLOW_KEYS = {
  flows: (storeId: string) => ({ pk: `STORE#${storeId}#FLOWS` }),
  flow: (storeId: string, flowId: string) => ({ pk: `STORE#${storeId}#FLOWS`, sk: `FLOW#${flowId}` }),
  flowRun: (storeId: string, runId: string) => ({ pk: `STORE#${storeId}#RUN#${runId}`, sk: 'RUN' }),
  /** A backtest job (docs/backtest.md "As a job"), removed by TTL a week after it was made. */
  backtestJob: (storeId: string, backtestId: string) => ({
    pk: `STORE#${storeId}#BACKTEST#${backtestId}`,
    sk: 'BACKTEST',
  }),
  /** A store's backtest jobs queued or running: their ids, each with the time it stops counting. */
  openBacktests: (storeId: string) => ({ pk: `STORE#${storeId}#BACKTESTS-OPEN`, sk: 'OPEN' }),
  /** A store's deliveries, permanent bounces and complaints of one UTC day (the sending guard). */
  reputation: (storeId: string, day: string) => ({ pk: `STORE#${storeId}#REPUTATION#${day}`, sk: 'COUNT' }),
  /** Whether the store's webhooks last announced its marketing paused, and how many changes they announced. */
  standingAnnounced: (storeId: string) => ({ pk: `STORE#${storeId}#REPUTATION`, sk: 'ANNOUNCED' }),
  /** A store's marketing sends of one UTC day (`yyyymmdd`), counted against the daily cap. */
  dailySends: (storeId: string, day: string) => ({ pk: `STORE#${storeId}#DAILY-SENDS#${day}`, sk: 'COUNT' }),
  /** A contact's recent marketing send times, for the frequency cap (docs/smart-sending.md). */
  recentSends: (storeId: string, email: string) => ({
    pk: `STORE#${storeId}#RECENT-SENDS#${email.toLowerCase()}`,
    sk: 'SENDS',
  }),
  /** A flow wait kept in the timer wheel's bucket of its store and due minute (epoch ms). */
  wheelEntry: (storeId: string, minute: number, name: string) => ({ pk: `STORE#${storeId}#WHEEL#${minute}`, sk: name }),
  /** How many waits the store keeps in the timer wheel (its cap: `LIMITS.waitingRunsPerStore`). */
  waitingRuns: (storeId: string) => ({ pk: `STORE#${storeId}#WAITING`, sk: 'COUNT' }),
  /** Re-entry guard: one item per flow and entry key (contact, subject, or contact + cool-down window). */
  flowEntry: (storeId: string, flowId: string, entryKey: string) => ({
    pk: `STORE#${storeId}#FLOW#${flowId}#ENTRY#${entryKey}`,
    sk: 'ENTRY',
  }),
  /** Explain: every evaluation of a trigger against a flow, newest last. */
  flowEvaluations: (storeId: string, flowId: string) => ({ pk: `STORE#${storeId}#EVAL#${flowId}` }),
  flowEvaluation: (storeId: string, flowId: string, at: number, triggerId: string) => ({
    pk: `STORE#${storeId}#EVAL#${flowId}`,
    sk: `${pad(at, 15)}#${triggerId}`,
  }),
  flowEvaluationsByContact: (storeId: string, email: string, at: number, flowId: string, triggerId: string) => ({
    gsi1pk: `STORE#${storeId}#CONTACT#${email.toLowerCase()}#EVALS`,
    gsi1sk: `${pad(at, 15)}#${flowId}#${triggerId}`,
  }),
  /** What triggers told the flow engine about an address, in time order (`activity.*` conditions read it). */
  contactActivity: (storeId: string, email: string) => ({ pk: `STORE#${storeId}#ACTIVITY#${email.toLowerCase()}` }),
  contactActivityEntry: (storeId: string, email: string, at: number, triggerId: string) => ({
    pk: `STORE#${storeId}#ACTIVITY#${email.toLowerCase()}`,
    sk: `${pad(at, 15)}#${triggerId}`,
  }),
  /** The last recovery email (abandoned cart or browse) to an address about a product. */
  recoveryMark: (storeId: string, email: string, productId: string) => ({
    pk: `STORE#${storeId}#RECOVERY#${email.toLowerCase()}#${productId}`,
    sk: 'MARK',
  }),
} as const;
