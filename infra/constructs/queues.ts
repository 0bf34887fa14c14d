import { Duration, type Stack } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { QUEUES, type QueueName, type QueueSpec } from '#shared/catalog/queues.ts';
import { pascalCase } from './names.ts';

/*
 * Construct builders add their resources to the stack given as `scope`, with the ids they always had: a resource's
 * logical id derives from its construct path, and a changed id would make CloudFormation replace a deployed queue (and
 * lose its messages) or a deployed API (and change its URL).
 */

const serviceQueue = (scope: Stack, name: QueueName, spec: QueueSpec): Queue => {
  const id = pascalCase(name);
  // A FIFO queue's DLQ must be FIFO too. Content-based dedup stays off: the producer sets MessageDeduplicationId
  // itself, and hashing bodies would wrongly drop two legitimately equal events.
  const fifo = spec.fifo ? { fifo: true, contentBasedDeduplication: false } : {};
  const deadLetterQueue = new Queue(scope, `${id}Dlq`, {
    ...fifo,
    // The longest SQS allows: time to notice, inspect and redrive failed messages.
    retentionPeriod: Duration.days(14),
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
  });
  return new Queue(scope, `${id}Queue`, {
    ...fifo,
    visibilityTimeout: Duration.seconds(spec.visibilityTimeoutSeconds),
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: spec.maxReceiveCount },
  });
};

/** Every queue of the catalog, each with its DLQ and redrive. */
export const serviceQueues = (scope: Stack): Map<QueueName, Queue> =>
  new Map(
    (Object.entries(QUEUES) as [QueueName, QueueSpec][]).map(([name, spec]) => [name, serviceQueue(scope, name, spec)]),
  );

/** The queue the catalog names; a name QUEUES does not define fails the synth. */
export const queueOf = (queues: ReadonlyMap<QueueName, Queue>, name: QueueName): Queue => {
  const queue = queues.get(name);
  if (!queue) throw new Error(`Catalog names queue "${name}", which QUEUES does not define`);
  return queue;
};
