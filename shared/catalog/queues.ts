/** The service's queues, read by the CDK stack, the local runtime and the queue workers. Pure data. */
import { ENV } from '#shared/config.ts';

/** Queues owned by the service stack. FIFO queues keep per-entity order (MessageGroupId). */
export interface QueueSpec {
  readonly fifo: boolean;
  /** Must exceed the consumer's timeout (AWS requires >= function timeout; 6x is the recommended margin). */
  readonly visibilityTimeoutSeconds: number;
  /** Receives before a message moves to the queue's DLQ. */
  readonly maxReceiveCount: number;
  /** Environment variable that carries the queue URL to functions that send to it. */
  readonly urlEnv: string;
  /** The queue EventBridge Scheduler delivers one-time timers to (functions with `uses.scheduler` target it). */
  readonly schedulerTarget?: boolean;
}

export const QUEUES = {
  /** Accepted store events, grouped per store + entity so one entity's events apply in order. */
  ingest: {
    fifo: true,
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
    visibilityTimeoutSeconds: 120,
    maxReceiveCount: 6,
    urlEnv: ENV.webhookQueueUrl,
  },
  /** Batch imports: a message per job, and per continuation of a job that outlives one invocation. */
  imports: {
    fifo: false,
    // Longer than the worker's 15 minutes, as SQS requires for its consumer.
    visibilityTimeoutSeconds: 960,
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
    visibilityTimeoutSeconds: 180,
    maxReceiveCount: 5,
    urlEnv: ENV.flowQueueUrl,
  },
  /** Bulk-send chunks: one message per chunk of at most 50 recipients. */
  sends: {
    fifo: false,
    visibilityTimeoutSeconds: 180,
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
} as const satisfies Record<string, QueueSpec>;
export type QueueName = keyof typeof QUEUES;
