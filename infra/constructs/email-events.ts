import { CfnOutput, type RemovalPolicy, type Stack } from 'aws-cdk-lib';
import { ConfigurationSet, EmailSendingEvent, EventDestination, SuppressionReasons } from 'aws-cdk-lib/aws-ses';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { SqsSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { Stage } from '#shared/catalog/stage.ts';
import { configurationSetName } from './references.ts';

/*
 * Construct builders add their resources to the stack given as `scope`, with the ids they always had: a resource's
 * logical id derives from its construct path, and a changed id would make CloudFormation replace a deployed queue (and
 * lose its messages) or a deployed API (and change its URL).
 */

/**
 * SES event publishing: a configuration set per stage whose delivery, bounce, complaint, open, click, subscription,
 * reject and rendering-failure events go to an SNS topic, which the `emailEvents` queue subscribes (SNS envelope
 * kept: the worker reads the envelope, and a raw delivery too). Send and DeliveryDelay events are not published: no
 * callback reports them. The topic accepts SES's publishes for this configuration set only (the L2 adds that policy).
 */
export const emailEvents = (
  scope: Stack,
  stage: Stage,
  queue: Queue,
  removalPolicy: RemovalPolicy,
): ConfigurationSet => {
  const configurationSet = new ConfigurationSet(scope, 'EmailConfigurationSet', {
    configurationSetName: configurationSetName(stage),
    reputationMetrics: true,
    // The account-level list only for bounces: a bounced address is bad for every store, while a complaint is about
    // one store's mail (the service suppresses it for that store alone).
    suppressionReasons: SuppressionReasons.BOUNCES_ONLY,
  });
  configurationSet.applyRemovalPolicy(removalPolicy);
  const topic = new Topic(scope, 'EmailEventsTopic', {
    displayName: `Storeflow ${stage}: SES events`,
    enforceSSL: true,
  });
  topic.applyRemovalPolicy(removalPolicy);
  // An event SNS cannot deliver (the queue deleted or its policy broken) goes to the queue's own DLQ after SNS's
  // retries instead of being dropped: the DlqNotEmpty alarm of that queue sees it, and a redrive replays it.
  const deadLetterQueue = queue.deadLetterQueue?.queue;
  if (!deadLetterQueue) throw new Error('The email-events queue has no DLQ for SNS to fall back on');
  topic.addSubscription(new SqsSubscription(queue, { rawMessageDelivery: false, deadLetterQueue }));
  configurationSet.addEventDestination('ToEmailEvents', {
    destination: EventDestination.snsTopic(topic),
    events: [
      EmailSendingEvent.DELIVERY,
      EmailSendingEvent.BOUNCE,
      EmailSendingEvent.COMPLAINT,
      EmailSendingEvent.OPEN,
      EmailSendingEvent.CLICK,
      EmailSendingEvent.SUBSCRIPTION,
      EmailSendingEvent.REJECT,
      EmailSendingEvent.RENDERING_FAILURE,
    ],
  });
  new CfnOutput(scope, 'EmailEventsTopicArn', { value: topic.topicArn, description: 'SNS topic of the SES events' });
  return configurationSet;
};
