/**
 * Environment configuration: the names of every variable in one place, parsed once (on first use, i.e. at cold start)
 * with valibot. CDK sets these from the function catalog; the local runtime sets the same names for its emulators.
 * AWS endpoints are not configuration here: the SDK reads the standard `AWS_ENDPOINT_URL_*` variables itself.
 */
import * as v from 'valibot';
import { OPERATOR_SETTINGS } from '#shared/catalog/settings.ts';
import { onReset } from '#shared/lazy.ts';

export const ENV = {
  stage: 'STAGE',
  tableName: 'TABLE_NAME',
  ingestQueueUrl: 'INGEST_QUEUE_URL',
  masterKeySecretId: 'MASTER_KEY_SECRET_ID',
  authCacheSeconds: OPERATOR_SETTINGS.authCacheSeconds.env,
  timersQueueArn: 'TIMERS_QUEUE_ARN',
  schedulerRoleArn: 'SCHEDULER_ROLE_ARN',
  timersDlqArn: 'TIMERS_DLQ_ARN',
  scheduleGroup: 'SCHEDULE_GROUP',
  checkoutRecoveryWaitMinutes: OPERATOR_SETTINGS.checkoutRecoveryWaitMinutes.env,
  eventHistoryDays: OPERATOR_SETTINGS.eventHistoryDays.env,
  webhookQueueUrl: 'WEBHOOK_QUEUE_URL',
  webhookBackoffBaseSeconds: 'WEBHOOK_BACKOFF_BASE_SECONDS',
  webhookTimeoutSeconds: OPERATOR_SETTINGS.webhookTimeoutSeconds.env,
  webhookAllowPrivateUrls: 'WEBHOOK_ALLOW_PRIVATE_URLS',
  importsBucket: 'IMPORTS_BUCKET',
  importQueueUrl: 'IMPORT_QUEUE_URL',
  s3ForcePathStyle: 'S3_FORCE_PATH_STYLE',
  flowQueueUrl: 'FLOW_QUEUE_URL',
  sendQueueUrl: 'SEND_QUEUE_URL',
  emailEventsQueueUrl: 'EMAIL_EVENTS_QUEUE_URL',
  countersQueueUrl: 'COUNTERS_QUEUE_URL',
  segmentQueueUrl: 'SEGMENT_QUEUE_URL',
  campaignQueueUrl: 'CAMPAIGN_QUEUE_URL',
  backtestQueueUrl: 'BACKTEST_QUEUE_URL',
  sesConfigurationSet: 'SES_CONFIGURATION_SET',
  sesSendRatePerSecond: OPERATOR_SETTINGS.sesSendRatePerSecond.env,
  storeDailySendCap: OPERATOR_SETTINGS.storeDailySendCap.env,
  storeFlowRunsPerSecond: OPERATOR_SETTINGS.storeFlowRunsPerSecond.env,
  storeBulkRecipientsPerSecond: OPERATOR_SETTINGS.storeBulkRecipientsPerSecond.env,
  publicMainUrl: 'PUBLIC_MAIN_URL',
  publicSendingUrl: 'PUBLIC_SENDING_URL',
  publicFrontUrl: 'PUBLIC_FRONT_URL',
} as const;

/**
 * How long a warm function trusts a verified store key without reading it again: a rotated key stops working
 * everywhere within this many seconds, and a busy store costs one key read per warm instance per period.
 */
export const DEFAULT_AUTH_CACHE_SECONDS = OPERATOR_SETTINGS.authCacheSeconds.default;

const intFromString = (fallback: number) =>
  v.pipe(v.optional(v.string(), String(fallback)), v.transform(Number), v.number(), v.integer(), v.minValue(0));

const ConfigSchema = v.object({
  [ENV.stage]: v.optional(v.string(), 'dev'),
  [ENV.tableName]: v.optional(v.string()),
  [ENV.ingestQueueUrl]: v.optional(v.string()),
  [ENV.masterKeySecretId]: v.optional(v.string()),
  [ENV.authCacheSeconds]: intFromString(DEFAULT_AUTH_CACHE_SECONDS),
  [ENV.timersQueueArn]: v.optional(v.string()),
  [ENV.schedulerRoleArn]: v.optional(v.string()),
  [ENV.timersDlqArn]: v.optional(v.string()),
  [ENV.scheduleGroup]: v.optional(v.string(), 'default'),
  [ENV.checkoutRecoveryWaitMinutes]: intFromString(OPERATOR_SETTINGS.checkoutRecoveryWaitMinutes.default),
  [ENV.eventHistoryDays]: intFromString(OPERATOR_SETTINGS.eventHistoryDays.default),
  [ENV.webhookQueueUrl]: v.optional(v.string()),
  [ENV.webhookBackoffBaseSeconds]: intFromString(5),
  [ENV.webhookTimeoutSeconds]: intFromString(OPERATOR_SETTINGS.webhookTimeoutSeconds.default),
  [ENV.webhookAllowPrivateUrls]: v.optional(v.picklist(['true', 'false']), 'false'),
  [ENV.importsBucket]: v.optional(v.string()),
  [ENV.importQueueUrl]: v.optional(v.string()),
  [ENV.s3ForcePathStyle]: v.optional(v.picklist(['true', 'false']), 'false'),
  [ENV.flowQueueUrl]: v.optional(v.string()),
  [ENV.sendQueueUrl]: v.optional(v.string()),
  [ENV.emailEventsQueueUrl]: v.optional(v.string()),
  [ENV.countersQueueUrl]: v.optional(v.string()),
  [ENV.segmentQueueUrl]: v.optional(v.string()),
  [ENV.campaignQueueUrl]: v.optional(v.string()),
  [ENV.backtestQueueUrl]: v.optional(v.string()),
  [ENV.sesConfigurationSet]: v.optional(v.string()),
  [ENV.sesSendRatePerSecond]: intFromString(OPERATOR_SETTINGS.sesSendRatePerSecond.default),
  [ENV.storeDailySendCap]: intFromString(OPERATOR_SETTINGS.storeDailySendCap.default),
  [ENV.storeFlowRunsPerSecond]: intFromString(OPERATOR_SETTINGS.storeFlowRunsPerSecond.default),
  [ENV.storeBulkRecipientsPerSecond]: intFromString(OPERATOR_SETTINGS.storeBulkRecipientsPerSecond.default),
  [ENV.publicMainUrl]: v.optional(v.string()),
  [ENV.publicSendingUrl]: v.optional(v.string()),
  [ENV.publicFrontUrl]: v.optional(v.string()),
});

export interface Config {
  readonly stage: string;
  readonly tableName: string | undefined;
  readonly ingestQueueUrl: string | undefined;
  readonly masterKeySecretId: string | undefined;
  /** How long a resolved API key stays cached in a warm function (a rotated key keeps working at most this long). */
  readonly authCacheSeconds: number;
  /** Target of the one-time timers (Scheduler delivers to this queue). */
  readonly timersQueueArn: string | undefined;
  /** Role EventBridge Scheduler assumes to send to the timers queue. */
  readonly schedulerRoleArn: string | undefined;
  /** Where Scheduler puts a timer it could not deliver to the timers queue after its retries (the queue's DLQ). */
  readonly timersDlqArn: string | undefined;
  readonly scheduleGroup: string;
  /** Wait before checkout recovery starts (spec: at least 30 minutes advised). */
  readonly checkoutRecoveryWaitMinutes: number;
  /** Days an applied event's payload is kept for backtests (docs/backtest.md). */
  readonly eventHistoryDays: number;
  readonly webhookQueueUrl: string | undefined;
  /** First retry delay of a webhook delivery; the next ones double it (spec: 5, 10, 20, 40, 80 s). */
  readonly webhookBackoffBaseSeconds: number;
  /** How long a receiver has to answer one delivery attempt. */
  readonly webhookTimeoutSeconds: number;
  /**
   * Accept and deliver to loopback and private addresses (and plain http). Off in every deployed stage; the local
   * runtime turns it on so a developer can receive webhooks on the laptop.
   */
  readonly webhookAllowPrivateUrls: boolean;
  /** The bucket of import files. */
  readonly importsBucket: string | undefined;
  readonly importQueueUrl: string | undefined;
  /** Path-style S3 addressing: for S3 emulators on an IP address (the local runtime); AWS uses virtual hosts. */
  readonly s3ForcePathStyle: boolean;
  /** Flow triggers to evaluate (and flow runs to continue). */
  readonly flowQueueUrl: string | undefined;
  /** Bulk-send chunks (at most 50 recipients each). */
  readonly sendQueueUrl: string | undefined;
  /** SES events (delivery, bounce, complaint, open, click, subscription) published by the configuration set. */
  readonly emailEventsQueueUrl: string | undefined;
  /** Counter additions the queue workers' batches send, written summed by the counters worker. */
  readonly countersQueueUrl: string | undefined;
  /** Segment builds, purges and timed re-evaluations. */
  readonly segmentQueueUrl: string | undefined;
  readonly campaignQueueUrl: string | undefined;
  /** Flow backtest jobs (docs/backtest.md). */
  readonly backtestQueueUrl: string | undefined;
  /** The SES configuration set every message is sent with (event publishing). */
  readonly sesConfigurationSet: string | undefined;
  /** Messages per second the SES account allows (its sending quota); bulk chunks are paced to stay under it. */
  readonly sesSendRatePerSecond: number;
  /** Marketing emails (bulk and consent flows) one store may send per UTC day; 0 for no cap (`pacing.ts`). */
  readonly storeDailySendCap: number;
  /** Flow runs one store may start per second (`admission.ts`): sized to what the flow workers carry. */
  readonly storeFlowRunsPerSecond: number;
  /** Bulk recipients one store may have accepted per second (`recipient-budget.ts`). */
  readonly storeBulkRecipientsPerSecond: number;
  /** Public base URL of the main host (OAuth links, back office). */
  readonly publicMainUrl: string | undefined;
  /** Public base URL of the sending host (unsubscribe links in every email). */
  readonly publicSendingUrl: string | undefined;
  /** Public base URL of the front host (the served API description names it). */
  readonly publicFrontUrl: string | undefined;
}

let cached: Config | undefined;
let observedConfig: Config | undefined;
let configObserver: ((key: keyof Config) => void) | undefined;
onReset(() => {
  cached = undefined;
  observedConfig = undefined;
});

/**
 * Sees every setting read through `config()` (the local runtime's contract recorder attributes each to the function
 * reading it; test/contract/ compares them with each function's deployed environment). Production sets none.
 */
export const observeConfig = (observer: ((key: keyof Config) => void) | undefined): void => {
  configObserver = observer;
  observedConfig = undefined;
};

/** The parsed configuration; throws at cold start with every bad variable named. */
export const config = (): Config => {
  if (configObserver) return observingConfig(configObserver);
  return parsedConfig();
};

const observingConfig = (observer: (key: keyof Config) => void): Config => {
  observedConfig ??= new Proxy(parsedConfig(), {
    get(target, key, receiver) {
      if (typeof key === 'string' && key in target) observer(key as keyof Config);
      return Reflect.get(target, key, receiver);
    },
  });
  return observedConfig;
};

const parsedConfig = (): Config => {
  if (cached) return cached;
  const result = v.safeParse(ConfigSchema, process.env);
  if (!result.success) {
    const problems = result.issues.map((i) => `${v.getDotPath(i) ?? '?'}: ${i.message}`).join('; ');
    throw new Error(`Invalid environment configuration: ${problems}`);
  }
  const env = result.output;
  cached = {
    stage: env[ENV.stage],
    tableName: env[ENV.tableName],
    ingestQueueUrl: env[ENV.ingestQueueUrl],
    masterKeySecretId: env[ENV.masterKeySecretId],
    authCacheSeconds: env[ENV.authCacheSeconds],
    timersQueueArn: env[ENV.timersQueueArn],
    schedulerRoleArn: env[ENV.schedulerRoleArn],
    timersDlqArn: env[ENV.timersDlqArn],
    scheduleGroup: env[ENV.scheduleGroup],
    checkoutRecoveryWaitMinutes: env[ENV.checkoutRecoveryWaitMinutes],
    eventHistoryDays: env[ENV.eventHistoryDays],
    webhookQueueUrl: env[ENV.webhookQueueUrl],
    webhookBackoffBaseSeconds: env[ENV.webhookBackoffBaseSeconds],
    webhookTimeoutSeconds: env[ENV.webhookTimeoutSeconds],
    webhookAllowPrivateUrls: env[ENV.webhookAllowPrivateUrls] === 'true',
    importsBucket: env[ENV.importsBucket],
    importQueueUrl: env[ENV.importQueueUrl],
    s3ForcePathStyle: env[ENV.s3ForcePathStyle] === 'true',
    flowQueueUrl: env[ENV.flowQueueUrl],
    sendQueueUrl: env[ENV.sendQueueUrl],
    emailEventsQueueUrl: env[ENV.emailEventsQueueUrl],
    countersQueueUrl: env[ENV.countersQueueUrl],
    segmentQueueUrl: env[ENV.segmentQueueUrl],
    campaignQueueUrl: env[ENV.campaignQueueUrl],
    backtestQueueUrl: env[ENV.backtestQueueUrl],
    sesConfigurationSet: env[ENV.sesConfigurationSet],
    sesSendRatePerSecond: env[ENV.sesSendRatePerSecond],
    storeDailySendCap: env[ENV.storeDailySendCap],
    storeFlowRunsPerSecond: env[ENV.storeFlowRunsPerSecond],
    storeBulkRecipientsPerSecond: env[ENV.storeBulkRecipientsPerSecond],
    publicMainUrl: env[ENV.publicMainUrl],
    publicSendingUrl: env[ENV.publicSendingUrl],
    publicFrontUrl: env[ENV.publicFrontUrl],
  };
  return cached;
};

/** Reads a variable that the function's catalog entry guarantees; a missing one is a deployment error. */
export const required = (name: keyof Config): string => {
  const value = config()[name];
  if (value === undefined || value === '') throw new Error(`Missing configuration: ${name}`);
  return String(value);
};
