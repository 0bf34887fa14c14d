import type { RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { CfnScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { Stage } from '#shared/catalog/stage.ts';
import { scheduleGroupName } from './references.ts';

/**
 * The one-time timers: a schedule group per stage (the pending timers themselves: it lives in the stateful stack, so
 * replacing or destroying the service stacks never deletes a waiting cart, checkout or flow timer), and the role
 * EventBridge Scheduler assumes to deliver fired schedules to the timers queue, or after its retries to that queue's
 * DLQ (it may send there and nowhere else).
 */
export const timerSchedules = (scope: Stack, stage: Stage, target: Queue, removalPolicy: RemovalPolicy) => {
  const group = new CfnScheduleGroup(scope, 'TimersGroup', { name: scheduleGroupName(stage) });
  group.applyRemovalPolicy(removalPolicy);
  const role = new Role(scope, 'SchedulerRole', {
    assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
      conditions: { StringEquals: { 'aws:SourceAccount': scope.account } },
    }),
    description: `Storeflow ${stage}: EventBridge Scheduler delivers fired timers to the timers queue`,
  });
  target.grantSendMessages(role);
  const deadLetterQueue = target.deadLetterQueue?.queue;
  if (!deadLetterQueue) throw new Error('The timers queue has no DLQ for Scheduler to fall back on');
  deadLetterQueue.grantSendMessages(role);
  return { group, role };
};
