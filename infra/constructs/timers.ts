import type { Stack } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { CfnScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { QUEUES, type QueueName, type QueueSpec } from '#shared/catalog/queues.ts';
import type { Stage } from '#shared/catalog/stage.ts';
import { queueOf } from './queues.ts';
import type { SchedulerBinding } from './service-function.ts';

/*
 * Construct builders add their resources to the stack given as `scope`, with the ids they always had: a resource's
 * logical id derives from its construct path, and a changed id would make CloudFormation replace a deployed queue (and
 * lose its messages) or a deployed API (and change its URL).
 */

/**
 * The one-time timers: a schedule group per stage, and the role EventBridge Scheduler assumes to deliver fired
 * schedules to the catalog's `schedulerTarget` queue (it may send there and nowhere else).
 */
export const timerSchedules = (scope: Stack, stage: Stage, queues: ReadonlyMap<QueueName, Queue>): SchedulerBinding => {
  const target = Object.entries(QUEUES).find(([, spec]) => (spec as QueueSpec).schedulerTarget);
  if (!target) throw new Error('No queue in the catalog is the scheduler target');
  const queue = queueOf(queues, target[0] as QueueName);
  const group = new CfnScheduleGroup(scope, 'TimersGroup', { name: `storeflow-${stage}` });
  const role = new Role(scope, 'SchedulerRole', {
    assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
      conditions: { StringEquals: { 'aws:SourceAccount': scope.account } },
    }),
    description: `Storeflow ${stage}: EventBridge Scheduler delivers fired timers to the timers queue`,
  });
  queue.grantSendMessages(role);
  return { groupName: group.name ?? `storeflow-${stage}`, groupArn: group.attrArn, role, queueArn: queue.queueArn };
};
