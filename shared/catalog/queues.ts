/** The service's queues, read by the CDK stack, the local runtime and the queue workers. Pure data. */
import { ENV } from '#shared/config.ts';

/** Queues owned by the service stack. FIFO queues keep per-entity order (MessageGroupId). */
export interface QueueSpec {
  readonly fifo: boolean;
  /**
   * At least six times the consumer's timeout (AWS's rule for Lambda event sources: an invocation the mapping retries
   * after a throttle must not see its messages reappear and count as a receive). The synth checks it.
   */
  readonly visibilityTimeoutSeconds: number;
  /** Receives before a message moves to the queue's DLQ. */
  readonly maxReceiveCount: number;
  /** Environment variable that carries the queue URL to functions that send to it. */
  readonly urlEnv: string;
  /** The queue EventBridge Scheduler delivers one-time timers to (functions with `uses.scheduler` target it). */
  readonly schedulerTarget?: boolean;
  /**
   * High-throughput FIFO: deduplication and the throughput limit per message group instead of per queue (SQS then
   * allows up to 70,000 messages/s per queue in the largest regions instead of 300, or 3,000 batched).
   */
  readonly highThroughput?: boolean;
}

export const QUEUES = {
  /** Accepted store events, grouped per store + entity so one entity's events apply in order. */
  ingest: {
    fifo: true,
    highThroughput: true,
    visibilityTimeoutSeconds: 180,
    maxReceiveCount: 5,
    urlEnv: ENV.ingestQueueUrl,
  },
  /**
   * Webhook deliveries: one message per delivery; a failed attempt holds its message back (5, 10, 20, 40, 80 s), and
   * after 6 receives (the first attempt and the spec's 5 retries) the redrive moves it to the DLQ.
   */
  webhooks: {
    fifo: false,
    visibilityTimeoutSeconds: 660,
    maxReceiveCount: 6,
    urlEnv: ENV.webhookQueueUrl,
  },
  /** Batch imports: a message per job, and per continuation of a job that outlives one invocation. */
  imports: {
    fifo: false,
    // Six times the worker's 5 minutes, as Lambda asks of a queue it reads. A run keeps its message invisible a minute
    // at a time (`WORK_HEARTBEAT`), so a crashed run's message comes back within a minute; only one whose first beat
    // failed waits this long.
    visibilityTimeoutSeconds: 1800,
    maxReceiveCount: 3,
    urlEnv: ENV.importQueueUrl,
  },
  /** Fired timers (cart +1 h, checkout recovery wait): a standard queue, each timer is independent. */
  timers: {
    fifo: false,
    visibilityTimeoutSeconds: 180,
    maxReceiveCount: 5,
    urlEnv: 'TIMERS_QUEUE_URL',
    schedulerTarget: true,
  },
  /** Flow triggers to evaluate against the store's flows, and flow runs to continue. */
  flows: {
    fifo: false,
    visibilityTimeoutSeconds: 360,
    maxReceiveCount: 5,
    urlEnv: ENV.flowQueueUrl,
  },
  /** Bulk-send chunks: one message per chunk of at most 50 recipients. */
  sends: {
    fifo: false,
    visibilityTimeoutSeconds: 360,
    maxReceiveCount: 5,
    urlEnv: ENV.sendQueueUrl,
  },
  /** SES events from the configuration set (through SNS), turned into `transmission/callback` webhooks. */
  emailEvents: {
    fifo: false,
    visibilityTimeoutSeconds: 180,
    maxReceiveCount: 5,
    urlEnv: ENV.emailEventsQueueUrl,
  },
  /**
   * Counter additions: the stats' and the console's counts a queue worker's batch added (one message per
   * batch, every store's), which the counters worker sums over a few seconds of batches and writes once per store,
   * scope and period. Standard: additions commute, and each message is claimed once, so a redelivery counts nothing.
   */
  counters: {
    fifo: false,
    // Six times the worker's 10 s (a batch is a claim per message and an ADD per counter): a record that failed
    // comes back within a minute, its counts that much late.
    visibilityTimeoutSeconds: 60,
    maxReceiveCount: 5,
    urlEnv: ENV.countersQueueUrl,
  },
  /**
   * Segments: a segment's build and its continuations, a deleted segment's purge, and contacts whose time
   * window flipped (from the timer wheel).
   */
  segments: {
    fifo: false,
    // Six times the worker's 2 minutes.
    visibilityTimeoutSeconds: 720,
    maxReceiveCount: 5,
    urlEnv: ENV.segmentQueueUrl,
  },
  /**
   * Campaigns: a due campaign's start (from the timer wheel, or at once) and its walk's continuations.
   * Standard: each message resumes from the position recorded on the campaign, so order does not matter.
   */
  campaigns: {
    fifo: false,
    // Six times the worker's 2 minutes. A pass keeps its message invisible a minute at a time (`WORK_HEARTBEAT`), so a
    // crashed pass's message comes back within a minute; only one whose first beat failed waits this long.
    visibilityTimeoutSeconds: 720,
    maxReceiveCount: 5,
    urlEnv: ENV.campaignQueueUrl,
  },
  /**
   * Flow backtest jobs (docs/backtest.md): a message per job. A job runs in one invocation (at most 15 minutes); a
   * second receive (a crashed run) runs it again from the start, and a failure then is recorded on the job.
   */
  backtests: {
    fifo: false,
    // Six times the worker's 15 minutes.
    visibilityTimeoutSeconds: 5400,
    maxReceiveCount: 2,
    urlEnv: ENV.backtestQueueUrl,
  },
} as const satisfies Record<string, QueueSpec>;
export type QueueName = keyof typeof QUEUES;

/**
 * How a long run (an import's, a campaign pass's) keeps its message: invisible for `seconds`, renewed every `everyMs`
 * while it works (`keepInvisible`). A run that dies is picked up again within `seconds` of its last beat.
 */
export const WORK_HEARTBEAT = { seconds: 60, everyMs: 20_000 } as const;
