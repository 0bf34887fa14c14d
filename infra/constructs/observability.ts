import { Duration, Stack } from 'aws-cdk-lib';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  type IMetric,
  MathExpression,
  Metric,
  TextWidget,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { BUSINESS_METRICS, type BusinessMetric, metricsNamespace } from '#shared/observability/business-metrics.ts';
import { pascalCase } from './names.ts';

/** A queue of the catalog with its dead-letter queue. */
export interface ObservedQueue {
  readonly queue: IQueue;
  readonly deadLetterQueue: IQueue;
}

export interface ObservabilityProps {
  readonly stage: string;
  /** The HTTP API of each host. */
  readonly apis: Readonly<Record<string, IHttpApi>>;
  /** Each catalog queue (by catalog name) with its DLQ. */
  readonly queues: ReadonlyMap<string, ObservedQueue>;
  /** Each catalog function (by catalog name). */
  readonly functions: ReadonlyMap<string, Pick<IFunction, 'metricErrors' | 'metricThrottles'>>;
  readonly table: Pick<TableV2, 'metricThrottledRequestsForOperations'>;
  /** An address that receives every alarm (and must confirm the subscription SNS mails it). */
  readonly alarmEmail?: string;
}

/** 5xx answers above this share of an API's requests over five minutes alarm. */
export const SERVER_ERROR_RATE_PERCENT = 5;

/** The DynamoDB operations the service uses; their throttles alarm. */
const TABLE_OPERATIONS = ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'];

const FIVE_MINUTES = Duration.minutes(5);

/**
 * Operating the service: alarms on what needs a person (a message in any DLQ, an API answering 5xx, a function failing
 * or throttled, DynamoDB throttling), all sent to one SNS topic (with an optional email subscription), and one
 * dashboard with the APIs, the queues and the business metrics (`shared/observability/business-metrics.ts`).
 */
export class Observability extends Construct {
  readonly alarmTopic: Topic;
  readonly dashboard: Dashboard;
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: ObservabilityProps) {
    super(scope, id);
    this.alarmTopic = new Topic(this, 'AlarmTopic', {
      displayName: `Storeflow ${props.stage} alarms`,
      enforceSSL: true,
    });
    // `enforceSSL` gives the topic a resource policy of its own, which replaces SNS's default one (that let the
    // account's services publish): without this grant CloudWatch's alarm actions are refused and nobody is notified.
    this.alarmTopic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'CloudWatchAlarmsPublish',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.alarmTopic.topicArn],
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
    );
    if (props.alarmEmail) this.alarmTopic.addSubscription(new EmailSubscription(props.alarmEmail));

    for (const [name, { deadLetterQueue }] of props.queues) {
      // Anything in a DLQ is a message the service gave up on: always worth a look (it stays there 14 days).
      this.alarm(`${pascalCase(name)}DlqNotEmpty`, {
        metric: deadLetterQueue.metricApproximateNumberOfMessagesVisible({
          period: Duration.minutes(1),
          statistic: 'Maximum',
        }),
        threshold: 0,
        description: `Messages in the ${name} DLQ: inspect them, fix the cause, then redrive`,
      });
    }

    for (const [host, api] of Object.entries(props.apis)) {
      const rate = new MathExpression({
        expression: 'IF(requests > 0, 100 * errors / requests, 0)',
        usingMetrics: {
          errors: api.metricServerError({ period: FIVE_MINUTES, statistic: 'Sum' }),
          requests: api.metricCount({ period: FIVE_MINUTES, statistic: 'Sum' }),
        },
        label: `${host} 5xx %`,
        period: FIVE_MINUTES,
      });
      this.alarm(`${pascalCase(host)}Api5xxRate`, {
        metric: rate,
        threshold: SERVER_ERROR_RATE_PERCENT,
        description: `More than ${SERVER_ERROR_RATE_PERCENT}% of the ${host} API's requests answered 5xx over 5 minutes`,
      });
    }

    for (const [name, fn] of props.functions) {
      this.alarm(`${pascalCase(name)}Errors`, {
        metric: fn.metricErrors({ period: FIVE_MINUTES, statistic: 'Sum' }),
        threshold: 0,
        description: `${name} failed (an unhandled error or a timeout): see its log group`,
      });
      this.alarm(`${pascalCase(name)}Throttles`, {
        metric: fn.metricThrottles({ period: FIVE_MINUTES, statistic: 'Sum' }),
        threshold: 0,
        description: `${name} was throttled: the account's or the function's concurrency is exhausted`,
      });
    }

    // Both values of its `by` dimension: a paused store's refused bulk sends and skipped flow emails. Alarms cannot
    // use SEARCH, so the metrics are named with the dimensions the functions emit (`service` is Powertools' own).
    const paused = (by: string) =>
      new Metric({
        namespace: metricsNamespace(props.stage),
        metricName: BUSINESS_METRICS.marketingSendsPaused,
        dimensionsMap: { service: 'storeflow', by },
        statistic: 'Sum',
        period: FIVE_MINUTES,
      });
    this.alarm('MarketingSendsPaused', {
      metric: new MathExpression({
        expression: 'FILL(bulk, 0) + FILL(flow, 0)',
        usingMetrics: { bulk: paused('bulk'), flow: paused('flow') },
        period: FIVE_MINUTES,
      }),
      threshold: 0,
      description:
        "A store's marketing email is paused: its bounce or complaint rate is over the guard (docs/sending.md); " +
        'resume it with `store resume-sending` once its list is cleaned',
    });

    this.alarm('TableThrottles', {
      metric: props.table.metricThrottledRequestsForOperations({
        operations: TABLE_OPERATIONS as never,
        period: FIVE_MINUTES,
      }),
      threshold: 0,
      description: 'DynamoDB throttled requests to the service table (a hot partition or an account limit)',
    });

    this.dashboard = this.buildDashboard(props);
  }

  private alarm(id: string, options: { metric: IMetric; threshold: number; description: string }): Alarm {
    const alarm = new Alarm(this, id, {
      metric: options.metric,
      threshold: options.threshold,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      // No data (no traffic, an empty queue) is normal, not an alarm.
      treatMissingData: TreatMissingData.NOT_BREACHING,
      alarmDescription: options.description,
    });
    alarm.addAlarmAction(new SnsAction(this.alarmTopic));
    alarm.addOkAction(new SnsAction(this.alarmTopic));
    this.alarms.push(alarm);
    return alarm;
  }

  private buildDashboard(props: ObservabilityProps): Dashboard {
    const dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName: `storeflow-${props.stage}`,
      defaultInterval: Duration.hours(3),
    });
    const apis = Object.entries(props.apis);
    const queues = [...props.queues.entries()];
    const sum = { period: FIVE_MINUTES, statistic: 'Sum' } as const;
    dashboard.addWidgets(
      new TextWidget({
        markdown: `# Storeflow ${props.stage}\nAPIs, queues and business metrics. Alarms go to the SNS topic \`${this.alarmTopic.node.id}\`.`,
        width: 24,
        height: 2,
      }),
    );
    dashboard.addWidgets(
      new GraphWidget({
        title: 'API requests',
        left: apis.map(([host, api]) => api.metricCount({ ...sum, label: host })),
        width: 8,
      }),
      new GraphWidget({
        title: 'API 5xx and 4xx',
        left: apis.map(([host, api]) => api.metricServerError({ ...sum, label: `${host} 5xx` })),
        right: apis.map(([host, api]) => api.metricClientError({ ...sum, label: `${host} 4xx` })),
        width: 8,
      }),
      new GraphWidget({
        title: 'API latency (p50, p99)',
        left: apis.flatMap(([host, api]) => [
          api.metricLatency({ period: FIVE_MINUTES, statistic: 'p50', label: `${host} p50` }),
          api.metricLatency({ period: FIVE_MINUTES, statistic: 'p99', label: `${host} p99` }),
        ]),
        width: 8,
      }),
    );
    const max = { period: Duration.minutes(1), statistic: 'Maximum' } as const;
    dashboard.addWidgets(
      new GraphWidget({
        title: 'Queue depth (visible messages)',
        left: queues.map(([name, q]) => q.queue.metricApproximateNumberOfMessagesVisible({ ...max, label: name })),
        width: 8,
      }),
      new GraphWidget({
        title: 'Oldest message age (s)',
        left: queues.map(([name, q]) => q.queue.metricApproximateAgeOfOldestMessage({ ...max, label: name })),
        width: 8,
      }),
      new GraphWidget({
        title: 'DLQ depth',
        left: queues.map(([name, q]) =>
          q.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ ...max, label: `${name} DLQ` }),
        ),
        width: 8,
      }),
    );
    const business = (title: string, names: readonly BusinessMetric[]) =>
      new GraphWidget({
        title,
        left: names.map((name) => this.businessMetric(props.stage, name)),
        width: 8,
      });
    dashboard.addWidgets(
      business('Events', [
        BUSINESS_METRICS.eventsAccepted,
        BUSINESS_METRICS.eventsDuplicate,
        BUSINESS_METRICS.eventsRejected,
        BUSINESS_METRICS.eventsFailed,
      ]),
      business('Flows', [
        BUSINESS_METRICS.flowRunsStarted,
        BUSINESS_METRICS.flowEmailsSent,
        BUSINESS_METRICS.flowEmailsSkipped,
      ]),
      business('Webhooks', [
        BUSINESS_METRICS.webhookAttempts,
        BUSINESS_METRICS.webhookFailures,
        BUSINESS_METRICS.webhookExhausted,
      ]),
    );
    dashboard.addWidgets(
      business('Bulk sending', [
        BUSINESS_METRICS.bulkRecipientsAccepted,
        BUSINESS_METRICS.bulkRecipientsRejected,
        BUSINESS_METRICS.marketingSendsPaused,
        BUSINESS_METRICS.sendClaimsRetaken,
      ]),
      business('Email events', [BUSINESS_METRICS.emailEvents]),
      new GraphWidget({
        title: 'Function errors and throttles',
        left: [...props.functions.values()].map((fn) => fn.metricErrors(sum)),
        right: [...props.functions.values()].map((fn) => fn.metricThrottles(sum)),
        width: 8,
      }),
    );
    return dashboard;
  }

  /**
   * A business metric summed over whatever dimensions it is emitted with (`interface`, `reason`, `type`): a search
   * finds each series, so a new reason shows without a deploy.
   */
  private businessMetric(stage: string, name: BusinessMetric): MathExpression {
    return new MathExpression({
      expression: `SUM(SEARCH('{${metricsNamespace(stage)}} MetricName="${name}"', 'Sum', 300))`,
      label: name,
      period: FIVE_MINUTES,
    });
  }
}
