/**
 * What an operator may tune per deployment without a code change: each setting's CDK context key
 * (`npx cdk deploy -c sesSendRatePerSecond=50`), its environment variable, default and bounds, and the functions that
 * read it (the stacks set the variable on those). docs/deploy.md lists them; config.ts reads them with these defaults.
 * Pure data.
 */

/** What a setting's `readBy` looks at of a catalog function (structurally a `FunctionSpec`). */
interface Reader {
  readonly kind: 'http' | 'queue';
  readonly queue?: string;
  readonly uses: {
    readonly mailer?: boolean;
    readonly scheduler?: boolean;
    readonly replaysTimers?: boolean;
    readonly sendTo?: readonly string[];
  };
}

export interface OperatorSetting {
  /** The environment variable (config.ts's `ENV` takes it from here). */
  readonly env: string;
  readonly default: number;
  readonly min: number;
  readonly max: number;
  readonly description: string;
  /** The functions that read it. */
  readonly readBy: (spec: Reader) => boolean;
}

const sendsMail = (spec: Reader) => spec.uses.mailer === true || (spec.uses.sendTo ?? []).includes('sends');

export const OPERATOR_SETTINGS = {
  sesSendRatePerSecond: {
    env: 'SES_SEND_RATE_PER_SECOND',
    default: 14,
    min: 1,
    max: 10_000,
    description: "The SES account's maximum send rate (messages/s), shared by bulk and flow mail (docs/limits.md)",
    readBy: sendsMail,
  },
  storeDailySendCap: {
    env: 'STORE_DAILY_SEND_CAP',
    default: 100_000,
    min: 0,
    max: 100_000_000,
    description: 'Marketing emails one store may send per UTC day (bulk 429, flows exit daily_send_cap); 0 for none',
    readBy: sendsMail,
  },
  storeFlowRunsPerSecond: {
    env: 'STORE_FLOW_RUNS_PER_SECOND',
    default: 50,
    min: 1,
    max: 10_000,
    description:
      'Flow runs one store may start per second across its flows (a trigger over it waits for its turn; docs/limits.md)',
    readBy: (spec) => spec.kind === 'queue' && spec.queue === 'flows',
  },
  storeBulkRecipientsPerSecond: {
    env: 'STORE_BULK_RECIPIENTS_PER_SECOND',
    default: 1000,
    min: 1,
    max: 100_000,
    description:
      'Bulk recipients one store may have accepted per second, in bursts of 5 s (at least one full send); over it: 429',
    readBy: (spec) => spec.kind === 'http' && (spec.uses.sendTo ?? []).includes('sends'),
  },
  checkoutRecoveryWaitMinutes: {
    env: 'CHECKOUT_RECOVERY_WAIT_MINUTES',
    default: 30,
    min: 30,
    max: 7 * 24 * 60,
    description: 'Wait before an open checkout counts as abandoned (the spec advises at least 30 minutes)',
    readBy: (spec) => spec.uses.scheduler === true || spec.uses.replaysTimers === true,
  },
  eventHistoryDays: {
    env: 'EVENT_HISTORY_DAYS',
    default: 90,
    min: 1,
    max: 365,
    description:
      "Days an applied event's payload is kept for flow backtests (docs/backtest.md); DynamoDB TTL removes it",
    // The ingest worker writes the history; the timer worker's daily compaction rewrites it with the same retention.
    readBy: (spec) => spec.kind === 'queue' && (spec.queue === 'ingest' || spec.queue === 'timers'),
  },
  authCacheSeconds: {
    env: 'AUTH_CACHE_SECONDS',
    default: 5,
    min: 0,
    max: 300,
    description: 'How long a warm function trusts a verified store key: a rotated key stops working within it',
    readBy: (spec) => spec.kind === 'http',
  },
  webhookTimeoutSeconds: {
    env: 'WEBHOOK_TIMEOUT_SECONDS',
    default: 10,
    min: 1,
    max: 10,
    description:
      "How long a store's webhook receiver has to answer one attempt (the delivery worker sends ten in turn)",
    readBy: (spec) => spec.kind === 'queue' && spec.queue === 'webhooks',
  },
} as const satisfies Record<string, OperatorSetting>;

/** A setting's CDK context key is its name: `-c sesSendRatePerSecond=50`. */

export type OperatorSettingName = keyof typeof OPERATOR_SETTINGS;
