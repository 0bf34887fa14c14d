import { Duration, type RemovalPolicy, type Stack } from 'aws-cdk-lib';
import { DeduplicationScope, FifoThroughputLimit, Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { QUEUES, type QueueName, type QueueSpec } from '#shared/catalog/queues.ts';
import type { Stage } from '#shared/catalog/stage.ts';
import { pascalCase, queueNames } from './names.ts';

const serviceQueue = (
  scope: Stack,
  stage: Stage,
  name: QueueName,
  spec: QueueSpec,
  removalPolicy: RemovalPolicy,
): Queue => {
  const id = pascalCase(name);
  const names = queueNames(stage, name, spec.fifo);
  // A FIFO queue's DLQ must be FIFO too. Content-based dedup stays off: the producer sets MessageDeduplicationId
  // itself, and hashing bodies would wrongly drop two legitimately equal events.
  const fifo = spec.fifo ? { fifo: true, contentBasedDeduplication: false } : {};
  const highThroughput = spec.highThroughput
    ? {
        deduplicationScope: DeduplicationScope.MESSAGE_GROUP,
        fifoThroughputLimit: FifoThroughputLimit.PER_MESSAGE_GROUP_ID,
      }
    : {};
  const deadLetterQueue = new Queue(scope, `${id}Dlq`, {
    ...fifo,
    queueName: names.dlq,
    // The longest SQS allows: time to notice, inspect and redrive failed messages.
    retentionPeriod: Duration.days(14),
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    removalPolicy,
  });
  return new Queue(scope, `${id}Queue`, {
    ...fifo,
    ...highThroughput,
    queueName: names.queue,
    visibilityTimeout: Duration.seconds(spec.visibilityTimeoutSeconds),
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: spec.maxReceiveCount },
    removalPolicy,
  });
};

/** Every queue of the catalog, each with its DLQ and redrive, named `storeflow-<stage>-<queue>` (see names.ts). */
export const serviceQueues = (scope: Stack, stage: Stage, removalPolicy: RemovalPolicy): Map<QueueName, Queue> =>
  new Map(
    (Object.entries(QUEUES) as [QueueName, QueueSpec][]).map(([name, spec]) => [
      name,
      serviceQueue(scope, stage, name, spec, removalPolicy),
    ]),
  );

/** The queue the catalog names; a name QUEUES does not define fails the synth. */
export const queueOf = <Q>(queues: ReadonlyMap<QueueName, Q>, name: QueueName): Q => {
  const queue = queues.get(name);
  if (!queue) throw new Error(`Catalog names queue "${name}", which QUEUES does not define`);
  return queue;
};

/** The catalog queue EventBridge Scheduler delivers timers to. */
export const schedulerTargetQueue = (): QueueName => {
  const target = (Object.entries(QUEUES) as [QueueName, QueueSpec][]).find(([, spec]) => spec.schedulerTarget);
  if (!target) throw new Error('No queue in the catalog is the scheduler target');
  return target[0];
};
