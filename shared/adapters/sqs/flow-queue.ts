/**
 * The flows queue: flow triggers to evaluate and flow runs to resume, and the `FlowTriggers` hand-off that records a
 * trigger and queues it. Messages carry ids only (the trigger record and the run hold the data), so a large order or
 * cart never meets SQS's message size limit.
 */

import { sqs } from '#shared/adapters/aws-clients.ts';
import { dynamoFlowTriggers } from '#shared/adapters/dynamodb/engagement.repositories.ts';
import { required } from '#shared/config.ts';
import type { FlowQueue, FlowTriggers } from '#shared/domain/flows/ports.ts';
import { batchingSender, sqsSafeJson } from './batching-sender.ts';

export const sqsFlowQueue = (): FlowQueue => {
  const send = batchingSender(sqs, () => required('flowQueueUrl'));
  return {
    trigger: (storeId, triggerId, delaySeconds, reservedAt, after) =>
      // Trigger ids carry the event's source_id, which may hold any character (emoji included).
      send({
        MessageBody: sqsSafeJson({
          v: 1,
          type: 'trigger',
          storeId,
          triggerId,
          ...(reservedAt ? { reservedAt } : {}),
          ...(after !== undefined ? { after } : {}),
        }),
        MessageGroupId: storeId,
        ...(delaySeconds ? { DelaySeconds: Math.min(900, Math.max(0, Math.ceil(delaySeconds))) } : {}),
      }),
    resume: (storeId, runId, step) =>
      send({ MessageBody: sqsSafeJson({ v: 1, type: 'resume', storeId, runId, step }), MessageGroupId: storeId }),
  };
};

/**
 * Records the trigger (once per id) and queues it for the flow worker, every time: a trigger recorded by an attempt
 * whose send then failed is queued by the retry, so nothing is lost, and the worker is idempotent per trigger (a
 * duplicate message starts nothing twice).
 */
export const queuedFlowTriggers = (queue: FlowQueue = sqsFlowQueue()): FlowTriggers => {
  const log = dynamoFlowTriggers();
  return {
    async fire(trigger) {
      await log.fire(trigger);
      await queue.trigger(trigger.storeId, trigger.id);
    },
  };
};
