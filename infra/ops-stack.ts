import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { FUNCTIONS } from '#shared/catalog/functions.ts';
import { HOSTS } from '#shared/catalog/hosts.ts';
import { QUEUES, type QueueName } from '#shared/catalog/queues.ts';
import type { Stage } from '#shared/catalog/stage.ts';
import { dashboardName } from './constructs/names.ts';
import { Observability } from './constructs/observability.ts';
import { StageReferences } from './constructs/references.ts';

export interface OpsStackProps extends StackProps {
  readonly stage: Stage;
  /** Receives every alarm by email (SNS asks the address to confirm). */
  readonly alarmEmail?: string;
}

/**
 * Operating the stage: every alarm, the alarm topic and the dashboard, over the catalog's functions, queues and hosts,
 * each found by name or published id (weak references: this stack can go and come back without touching the others).
 */
export class OpsStack extends Stack {
  readonly observability: Observability;

  constructor(scope: Construct, id: string, props: OpsStackProps) {
    // The alarm topic and its subscriptions live here: protected except in dev.
    super(scope, id, { ...props, terminationProtection: props.stage !== 'dev' });
    const { stage } = props;
    const refs = new StageReferences(this, stage);
    this.observability = new Observability(this, 'Observability', {
      stage,
      apis: Object.fromEntries(HOSTS.map((host) => [host, refs.api(host)])),
      queues: new Map((Object.keys(QUEUES) as QueueName[]).map((name) => [name, refs.queue(name)] as const)),
      functions: new Map(FUNCTIONS.map((spec) => [spec.name, refs.functionMetrics(spec.name)] as const)),
      table: refs.table,
      ...(props.alarmEmail ? { alarmEmail: props.alarmEmail } : {}),
    });
    new CfnOutput(this, 'AlarmTopicArn', {
      value: this.observability.alarmTopic.topicArn,
      description: 'SNS topic of every alarm: subscribe email, chat or paging to it',
    });
    new CfnOutput(this, 'DashboardName', {
      value: dashboardName(stage),
      description: 'CloudWatch dashboard: APIs, queues, business metrics',
    });
  }
}
